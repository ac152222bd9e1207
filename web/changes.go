package web

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/internal/registry"
)

// answer is the reply to a change, read by the page's script.
type answer struct {
	Message  string            `json:"message,omitempty"`
	Error    string            `json:"error,omitempty"`
	Fields   map[string]string `json:"fields,omitempty"` // setting key → why its value is refused
	Redirect string            `json:"redirect,omitempty"`
	Reload   bool              `json:"reload,omitempty"`
}

func reply(w http.ResponseWriter, status int, a answer) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(a)
}

func done(w http.ResponseWriter, a answer) { reply(w, http.StatusOK, a) }

func fail(w http.ResponseWriter, status int, msg string) {
	reply(w, status, answer{Error: msg})
}

// postSwitch is Restart, Enable, Disable and Uninstall. Enable, Disable and
// Uninstall change the registry as the CLI's enable and disable do, and
// the host as the console's; Restart changes only the host, its crashes
// forgotten.
func (s *Server) postSwitch(op string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		en, rw, reg, ok := s.installed(w, r)
		if !ok {
			return
		}
		if rw.Plugin == nil && op == "restart" {
			fail(w, http.StatusConflict, rw.State.Reason) // a folder that cannot be loaded cannot start
			return
		}
		s.changes.Lock()
		defer s.changes.Unlock()
		a, err := s.switchPlugin(context.WithoutCancel(r.Context()), op, en, rw.Plugin, reg)
		if err != nil {
			fail(w, http.StatusConflict, err.Error())
			return
		}
		done(w, a)
	}
}

func (s *Server) switchPlugin(ctx context.Context, op string, en registry.Entry, p *host.Plugin, reg *registry.Registry) (answer, error) {
	switch op {
	case "restart":
		return answer{Message: tr(s.lang, "done.restart")}, p.Restart(ctx)
	case "enable", "disable":
		en.Disabled = op == "disable"
		reg.Put(en)
		if err := reg.Save(); err != nil {
			return answer{}, err
		}
		switch {
		case p == nil: // its folder cannot be loaded: the registry alone
		case en.Disabled:
			p.Disable(ctx)
		default:
			p.Enable()
		}
		return answer{Message: tr(s.lang, "done."+op), Reload: true}, nil
	}
	// uninstall: the program stops as for Disable; the host keeps the
	// plugin switched off in case it is installed again.
	reg.Remove(en.ID)
	if err := reg.Save(); err != nil {
		return answer{}, err
	}
	if p != nil {
		p.Disable(ctx)
	}
	s.states.publishList()
	return answer{Redirect: "/"}, nil
}

// postPermission takes a capability back or gives it again: the registry
// records it and the program restarts with it (docs/protocol.md#9-stopping-closing-and-user-changes).
func (s *Server) postPermission(grant bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		en, rw, reg, ok := s.installed(w, r)
		if !ok {
			return
		}
		if rw.Plugin == nil {
			fail(w, http.StatusConflict, rw.State.Reason)
			return
		}
		one, ok := only(r.PostFormValue("kind"), r.PostFormValue("value"))
		if !ok {
			fail(w, http.StatusBadRequest, "kind must be secrets, network, files or programs")
			return
		}
		s.changes.Lock()
		defer s.changes.Unlock()
		p := rw.Plugin
		granted := p.Granted().Without(one)
		msg := tr(s.lang, "done.revoke")
		if grant {
			granted = p.Granted().Union(one.Intersect(p.Manifest().Permissions)) // only what it asks
			msg = tr(s.lang, "done.grant")
		}
		en.Granted = granted
		reg.Put(en)
		if err := reg.Save(); err != nil {
			fail(w, http.StatusInternalServerError, err.Error())
			return
		}
		if err := p.SetGranted(context.WithoutCancel(r.Context()), granted); err != nil {
			fail(w, http.StatusInternalServerError, err.Error())
			return
		}
		done(w, answer{Message: msg, Reload: true})
	}
}
