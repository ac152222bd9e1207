//go:build linux

package hardening

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/escouade-dev/escouade-plugin/registry"
)

// recordingProxy is an HTTP proxy on loopback that records the target of
// every request (a CONNECT's host:port, or an absolute-form GET's URL) and
// answers 502: the test needs to know which proxy the host dialed, not a
// body, so no request ever leaves this machine.
type recordingProxy struct {
	url string
	mu  sync.Mutex
	got []string
}

func newRecordingProxy(t *testing.T) *recordingProxy {
	t.Helper()
	p := &recordingProxy{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		target := r.Host
		if r.Method != http.MethodConnect {
			target = r.URL.String()
		}
		p.mu.Lock()
		p.got = append(p.got, r.Method+" "+target)
		p.mu.Unlock()
		http.Error(w, "recorded by the test's proxy", http.StatusBadGateway)
	}))
	t.Cleanup(srv.Close)
	p.url = srv.URL
	return p
}

// seen is every request the proxy recorded so far.
func (p *recordingProxy) seen() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.got)
}

// proxyTarget is what a fetch of proxiedURL asks a proxy for.
const (
	proxiedURL  = "https://api.example.com/v1/ping"
	proxyTarget = "CONNECT api.example.com:443"
)

// fetchThrough has the bundle fetch proxiedURL and checks that exactly
// want among the proxies saw it. The proxy answers 502, so the fetch
// fails on the way (-32004): what counts is that it was asked.
func fetchThrough(t *testing.T, s *session, id string, want *recordingProxy, all ...*recordingProxy) {
	t.Helper()
	before := map[*recordingProxy]int{}
	for _, p := range all {
		before[p] = len(p.seen())
	}
	a := s.ask(id, "net/fetch", map[string]any{"url": proxiedURL}, 1)
	if a[0].Error == nil || a[0].Error.Code != -32004 {
		t.Fatalf("%s: the fetch through a proxy answering 502 got %+v %s, want a -32004 failure on the way", id, a[0].Error, a[0].Result)
	}
	for _, p := range all {
		asked := p.seen()[before[p]:]
		switch {
		case p == want && !slices.Contains(asked, proxyTarget):
			t.Errorf("%s: the proxy %s saw %q, want %q", id, p.url, asked, proxyTarget)
		case p != want && len(asked) > 0:
			t.Errorf("%s: the proxy %s, which should not be used, saw %q", id, p.url, asked)
		}
	}
}

// writeNetwork keeps proxy as Settings › Network does: the view's form
// calls this very function.
func writeNetwork(t *testing.T, home, proxy string) {
	t.Helper()
	if err := registry.WriteNetwork(home, registry.Network{Proxy: proxy}); err != nil {
		t.Fatal(err)
	}
}

// TestRunUsesSettingsNetworkProxy: a bundle's net/fetch goes through the
// proxy of <home>/network.json; a change of the file holds from the next
// start of the plugin (disable then enable, without restarting run) and
// of run; --proxy wins over the file.
func TestRunUsesSettingsNetworkProxy(t *testing.T) {
	fromFile, changed, fromFlag := newRecordingProxy(t), newRecordingProxy(t), newRecordingProxy(t)
	all := []*recordingProxy{fromFile, changed, fromFlag}
	dir := relayPlugin(t, map[string]any{"network": []string{"api.example.com"}}, nil)
	home := t.TempDir()
	writeNetwork(t, home, fromFile.url)

	s := runHome(t, dir, home)
	fetchThrough(t, s, "file", fromFile, all...)
	if j := journalFilesAll(home); !strings.Contains(j, "requests go through the proxy "+fromFile.url+" of the network settings: only host names are judged") {
		t.Errorf("the journal does not say the requests go through %s:\n%s", fromFile.url, tail(j, 3000))
	}

	// The view writes a new proxy while run runs: the running plugin
	// keeps its start's proxy; its next start takes the new one.
	writeNetwork(t, home, changed.url)
	fetchThrough(t, s, "same start", fromFile, all...)
	s.send(`{"op":"disable"}`)
	s.send(`{"op":"enable"}`)
	fetchThrough(t, s, "next start", changed, all...)
	s.close()

	// A new run reads the file again; --proxy overrides it.
	s = runHome(t, dir, home)
	fetchThrough(t, s, "new run", changed, all...)
	s.close()
	s = runHome(t, dir, home, "--proxy", fromFlag.url)
	fetchThrough(t, s, "flag", fromFlag, all...)
	s.close()
}
