package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/internal/testutil"
	"github.com/escouade-dev/escouade-plugin/keychain"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/modules"
	"github.com/escouade-dev/escouade-plugin/registry"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// fixtureBin is the plugin of testdata/plugin, built once for the tests.
var fixtureBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "web-fixture-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fixtureBin = filepath.Join(dir, "plugin")
	if err := testutil.GoBuild("./testdata/plugin", fixtureBin); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const fixtureID = "dev.escouade.fixture.view"

// fixtureManifest is the manifest of the view's fixture plugin; version
// and extra permissions vary by test.
func fixtureManifest(version string, secrets ...string) string {
	if len(secrets) == 0 {
		secrets = []string{"token", "other"}
	}
	list, _ := json.Marshal(secrets)
	return `{
  "id": "` + fixtureID + `",
  "name": {"en": "View fixture", "fr": "Banc de la vue"},
  "version": "` + version + `",
  "description": "A plugin the Plugins view's tests install.",
  "escouade": {"api": "1"},
  "run": {"command": ["./plugin"]},
  "activation": ["onCall"],
  "permissions": {"secrets": ` + string(list) + `},
  "contributes": {"settings": {
    "greeting": {"type": "string", "default": "hello", "label": {"en": "Greeting", "fr": "Salutation"}, "description": "How the plugin greets."},
    "retries": {"type": "integer", "default": 3, "label": "Retries"},
    "ratio": {"type": "number", "label": "Ratio"},
    "mode": {"type": "enum", "enum": ["fast", "slow"], "default": "fast", "label": "Mode"},
    "verbose": {"type": "boolean", "default": false, "label": "Verbose"},
    "apiKey": {"type": "secret", "label": "API key"}
  }}
}`
}

// pluginFolder writes a plugin folder with the fixture program.
func pluginFolder(t testing.TB, manifestText string) string {
	t.Helper()
	dir := t.TempDir()
	bin, err := os.ReadFile(fixtureBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plugin"), bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, manifest.FileName), []byte(manifestText), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// view is a running Plugins view on a loopback port.
type view struct {
	t    *testing.T
	srv  *Server
	home string
	kc   keychain.Keychain
	base string // http://127.0.0.1:port

	mu   sync.Mutex
	seen []exchange
	more chan struct{} // a new exchange was recorded
}

func (v *view) url() string { return URL(strings.TrimPrefix(v.base, "http://"), v.srv.Secret()) }

type viewOption func(*Options)

// startView starts a view over home (a new one when empty), with an
// in-memory keychain.
func startView(t *testing.T, home string, opts ...viewOption) *view {
	t.Helper()
	if home == "" {
		home = t.TempDir()
	}
	kc := keychain.NewMemory()
	o := Options{Host: host.Options{Home: home, Keychain: kc, StopGrace: 200 * time.Millisecond,
		Transports: map[manifest.RunKind]transport.Transport{manifest.RunProcess: modules.ProcessTransport(200 * time.Millisecond)}}}
	for _, f := range opts {
		f(&o)
	}
	srv, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	v := &view{t: t, srv: srv, home: home, kc: kc, base: "http://" + ln.Addr().String(), more: make(chan struct{}, 1)}
	hs := &http.Server{Handler: v.record(srv)}
	go hs.Serve(ln)
	t.Cleanup(func() {
		srv.Close(context.Background())
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(ctx)
	})
	return v
}

// exchange is a request the view answered, as the tests see it.
type exchange struct {
	method, path string
	status       int
}

// record notes every exchange with the view.
func (v *view) record(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(sw, r)
		v.mu.Lock()
		v.seen = append(v.seen, exchange{r.Method, r.URL.Path, sw.status})
		v.mu.Unlock()
		select {
		case v.more <- struct{}{}:
		default:
		}
	})
}

// awaitExchanges waits until the view has answered n requests to path.
func (v *view) awaitExchanges(path string, n int) []exchange {
	v.t.Helper()
	timeout := time.After(scaled(30 * time.Second))
	for {
		var found []exchange
		for _, e := range v.exchanges() {
			if e.path == path {
				found = append(found, e)
			}
		}
		if len(found) >= n {
			return found
		}
		select {
		case <-v.more:
		case <-timeout:
			v.t.Fatalf("the view answered %d requests to %s, want %d: %v", len(found), path, n, found)
		}
	}
}

func (v *view) exchanges() []exchange {
	v.mu.Lock()
	defer v.mu.Unlock()
	return slices.Clone(v.seen)
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Flush() { w.ResponseWriter.(http.Flusher).Flush() }

// installed records a plugin in the registry of home as the CLI's install
// does, everything it asks granted.
func installed(t testing.TB, home, dir string) {
	t.Helper()
	m, err := manifest.Load(dir, manifest.LoadOptions{AppVersion: host.AppVersion})
	if err != nil {
		t.Fatal(err)
	}
	offer, err := registry.Prepare(context.Background(), home, m.Dir, registry.InstallOptions{AppVersion: host.AppVersion, Compile: modules.Compiler(home, "")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := offer.Accept(m.Permissions); err != nil {
		t.Fatal(err)
	}
}

// call makes the app's call to the plugin and returns its outcome.
func (v *view) call(method string, params any) host.Outcome {
	v.t.Helper()
	p, ok := v.srv.Host().Plugin(fixtureID)
	if !ok {
		v.t.Fatalf("the host has no plugin %s", fixtureID)
	}
	ctx, cancel := context.WithTimeout(context.Background(), scaled(30*time.Second))
	defer cancel()
	return p.Call(ctx, method, params)
}

// scaled is a real-time bound, generous for a loaded machine.
func scaled(d time.Duration) time.Duration { return 3 * d }

// post sends a form to the view as the page's script does.
func (v *view) post(path string, form url.Values, header map[string]string) *http.Response {
	v.t.Helper()
	req, err := http.NewRequest(http.MethodPost, v.base+path, strings.NewReader(form.Encode()))
	if err != nil {
		v.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, val := range header {
		req.Header.Set(k, val)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		v.t.Fatal(err)
	}
	return res
}

func (v *view) registry() *registry.Registry {
	v.t.Helper()
	reg, err := registry.Open(v.home)
	if err != nil {
		v.t.Fatal(err)
	}
	return reg
}

func (v *view) plugin() *host.Plugin {
	v.t.Helper()
	p, ok := v.srv.Host().Plugin(fixtureID)
	if !ok {
		v.t.Fatalf("the host has no plugin %s", fixtureID)
	}
	return p
}

// startServer serves h on a loopback port of its own: another origin.
func startServer(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/"
}

func quoteJS(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func mustEntry(t *testing.T, v *view, id string) registry.Entry {
	t.Helper()
	en, ok := v.registry().Get(id)
	if !ok {
		t.Fatalf("%s is not installed", id)
	}
	return en
}
