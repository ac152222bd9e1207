package web

import (
	"net/http"
	"strings"

	"github.com/escouade-dev/escouade-plugin/registry"
)

// networkPage is Settings › Network: the app's proxy, kept under the home
// (registry.NetworkFile) and used by run, serve and installs from git
// unless --proxy overrides it.
type networkPage struct {
	page
	Proxy string
	// Flag is the command line's --proxy, which wins over the page's.
	Flag string
	// Problem is why the file kept under the home cannot be read.
	Problem string
}

func (s *Server) pageNetwork(w http.ResponseWriter, r *http.Request) {
	p := networkPage{page: s.newPage(tr(s.lang, "network")), Flag: s.opts.Proxy}
	n, err := registry.ReadNetwork(s.home)
	if err != nil {
		p.Problem = err.Error()
	}
	p.Proxy = n.Proxy
	s.render(w, "network.html", http.StatusOK, p)
}

// postNetwork keeps the proxy typed, or refuses it with the fix; modules
// started from now on go through it.
func (s *Server) postNetwork(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		fail(w, http.StatusBadRequest, err.Error())
		return
	}
	proxy := strings.TrimSpace(r.PostForm.Get("proxy"))
	s.changes.Lock()
	err := registry.WriteNetwork(s.home, registry.Network{Proxy: proxy})
	s.changes.Unlock()
	if err != nil {
		reply(w, http.StatusUnprocessableEntity, answer{Error: err.Error(), Fields: map[string]string{"proxy": err.Error()}})
		return
	}
	msg := tr(s.lang, "network.saved")
	if proxy == "" {
		msg = tr(s.lang, "network.cleared")
	}
	done(w, answer{Message: msg})
}
