package web

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"sync"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/keychain"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/registry"
)

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// Options configures the view.
type Options struct {
	// Host configures the host the plugins run in, as for the CLI's run;
	// its OnState is the view's own. Home, Lang, AppVersion and Keychain
	// are read from it.
	Host host.Options
	// Secret is the secret of this start; empty makes one (NewSecret).
	Secret string
	// Precompile checks and compiles a module plugin (run.js, run.wasm)
	// when the user says yes, as the CLI's install does, so that a module
	// the host would refuse is not installed; nil compiles nothing.
	Precompile func(ctx context.Context, m *manifest.Manifest) error
	// Proxy is the command line's --proxy, which overrides Settings ›
	// Network's; "" uses the page's.
	Proxy string
}

// Server is the Plugins view: an http.Handler over one host and the
// registry of its home.
type Server struct {
	opts    Options
	home    string
	lang    string
	secret  string
	kc      keychain.Keychain
	host    *host.Host
	tmpl    *template.Template
	mux     *http.ServeMux
	states  *broker
	changes sync.Mutex // one user change at a time: registry, settings, host

	syncing sync.Mutex // one sync at a time: a plugin is added once

	mu     sync.Mutex
	broken map[string]string // id → why its folder cannot be loaded
	review map[string]string // id → why its folder is not what the user consented to

	ag *agentsView // the Agents page (agents.go)
}

// New opens the registry of the home and adds every installed plugin to a
// new host. Nothing runs until a plugin is activated.
func New(opts Options) (*Server, error) {
	s := &Server{opts: opts, secret: opts.Secret, broken: map[string]string{}, review: map[string]string{}, states: newBroker()}
	if s.secret == "" {
		s.secret = NewSecret()
	}
	s.home = opts.Host.Home
	if s.home == "" {
		s.home = host.DefaultHome()
	}
	s.lang = opts.Host.Lang
	if s.lang == "" {
		s.lang = "en"
	}
	if s.opts.Host.AppVersion == "" {
		s.opts.Host.AppVersion = host.AppVersion
	}
	s.kc = opts.Host.Keychain
	hopts := s.opts.Host
	hopts.Home = s.home
	hopts.OnState = s.stateChanged
	s.host = host.New(hopts)
	tmpl, err := parseTemplates(s.lang)
	if err == nil {
		s.tmpl = tmpl
		_, err = s.sync(context.Background())
	}
	if err == nil {
		s.ag, err = s.openAgents()
	}
	if err != nil {
		s.host.Close(context.Background()) // the journals it opened
		return nil, err
	}
	s.routes()
	return s, nil
}

// Host is the host the plugins run in (the app's side of the library).
func (s *Server) Host() *host.Host { return s.host }

// Secret is the secret of this start.
func (s *Server) Secret() string { return s.secret }

// ServeHTTP serves the view behind its guard.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.guard(s.mux).ServeHTTP(w, r)
}

// Close ends the live streams and closes the host as Host.Close does:
// shutdown to every running plugin, then each program stopped.
func (s *Server) Close(ctx context.Context) error {
	s.ag.close(ctx)
	s.states.close()
	return s.host.Close(ctx)
}

func (s *Server) routes() {
	m := http.NewServeMux()
	static, _ := fs.Sub(staticFiles, "static")
	m.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	m.HandleFunc("GET /{$}", s.pageList)
	m.HandleFunc("GET /list", s.fragmentList)
	m.HandleFunc("GET /events", s.streamStates)
	m.HandleFunc("GET /install", s.pageInstall)
	m.HandleFunc("POST /install", s.postInstall)
	m.HandleFunc("GET /settings/network", s.pageNetwork)
	m.HandleFunc("POST /settings/network", s.postNetwork)
	m.HandleFunc("GET /plugins/{id}", s.pagePlugin)
	m.HandleFunc("GET /plugins/{id}/journal/events", s.streamJournal)
	m.HandleFunc("GET /plugins/{id}/review", s.fragmentReview)
	m.HandleFunc("POST /plugins/{id}/settings", s.postSettings)
	m.HandleFunc("POST /plugins/{id}/grant", s.postPermission(true))
	m.HandleFunc("POST /plugins/{id}/revoke", s.postPermission(false))
	m.HandleFunc("POST /plugins/{id}/restart", s.postSwitch("restart"))
	m.HandleFunc("POST /plugins/{id}/enable", s.postSwitch("enable"))
	m.HandleFunc("POST /plugins/{id}/disable", s.postSwitch("disable"))
	m.HandleFunc("POST /plugins/{id}/uninstall", s.postSwitch("uninstall"))
	s.agentRoutes(m)
	s.mux = m
}

// sync brings the host in line with the registry, which the CLI may have
// changed meanwhile: a plugin installed is added, one updated is updated,
// one switched off or on is switched. It returns the registry read.
func (s *Server) sync(ctx context.Context) (*registry.Registry, error) {
	s.syncing.Lock()
	defer s.syncing.Unlock()
	reg, err := registry.Open(s.home)
	if err != nil {
		return nil, err
	}
	for _, en := range reg.List() {
		if p, ok := s.host.Plugin(en.ID); ok {
			s.reconcile(ctx, en, p)
		} else {
			s.addLocked(en)
		}
	}
	return reg, nil
}

// reconcile applies to a plugin of the host what the registry says now.
func (s *Server) reconcile(ctx context.Context, en registry.Entry, p *host.Plugin) {
	dir, _ := filepath.Abs(en.Dir)
	if m := p.Manifest(); m.Version != en.Version || m.Dir != dir {
		// Only what the registry's consent covers is taken up (an install by
		// the CLI); a folder edited since is left for the next start's check.
		if next, err := s.load(en.Dir); err == nil && next.ID == en.ID {
			if err := registry.CheckEntry(s.home, en, next); err != nil {
				s.noteReview(en.ID, err)
			} else {
				p.Update(ctx, next)
			}
		}
	}
	if granted := en.Granted.Intersect(p.Manifest().Permissions); !samePermissions(granted, p.Granted()) {
		p.SetGranted(ctx, granted)
	}
	if s.reviewReason(en.ID) != "" {
		s.noteReview(en.ID, registry.CheckEntry(s.home, en, p.Manifest())) // installed again meanwhile, by the CLI
	}
	switch st := p.Status().State; {
	case en.Disabled && st != host.StateDisabled:
		p.Disable(ctx)
	case !en.Disabled && st == host.StateDisabled:
		p.Enable()
	}
}

func samePermissions(a, b manifest.Permissions) bool {
	for i, k := range kinds(a) {
		if !slices.Equal(k.list, kinds(b)[i].list) {
			return false
		}
	}
	return true
}

// add puts an installed plugin in the host, or notes why its folder
// cannot be loaded.
func (s *Server) add(en registry.Entry) {
	s.syncing.Lock()
	defer s.syncing.Unlock()
	s.addLocked(en)
}

// addLocked is add with s.syncing held.
func (s *Server) addLocked(en registry.Entry) {
	m, err := s.load(en.Dir)
	if err == nil {
		var settings map[string]json.RawMessage
		settings, err = registry.LoadSettings(s.home, en.ID)
		if err == nil {
			granted := en.Granted.Intersect(m.Permissions)
			_, err = s.host.Add(m, host.Config{Granted: &granted, Settings: settings, Disabled: en.Disabled, Admitted: s.admitted})
		}
		if err == nil {
			s.noteReview(en.ID, registry.CheckEntry(s.home, en, m))
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.broken[en.ID] = err.Error()
		return
	}
	delete(s.broken, en.ID)
}

// admitted hears every start's consent check of an installed plugin
// (the host's, host.Config.Admit nil, which reads the registry each time,
// so an install by the CLI meanwhile counts): the list offers the review,
// or no longer.
func (s *Server) admitted(m *manifest.Manifest, err error) {
	if s.noteReview(m.ID, err) {
		s.states.publishList()
	}
}

// noteReview remembers whether plugin id needs a review (err is its
// consent check) and reports whether that changed.
func (s *Server) noteReview(id string, err error) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	before, had := s.review[id]
	if err == nil {
		delete(s.review, id)
		return had
	}
	why := reviewWhy(err)
	s.review[id] = why
	return before != why
}

// reviewWhy is what changed in a folder that needs a review, as the
// view's review sentence takes it; another refusal is said whole.
func reviewWhy(err error) string {
	var changed *registry.ChangedError
	if errors.As(err, &changed) {
		return changed.What
	}
	return err.Error()
}

func (s *Server) reviewReason(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.review[id]
}

func (s *Server) load(dir string) (*manifest.Manifest, error) {
	return manifest.Load(dir, manifest.LoadOptions{AppVersion: s.opts.Host.AppVersion})
}

func (s *Server) brokenReason(id string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	why, ok := s.broken[id]
	return why, ok
}

func itoa(n int) string { return strconv.Itoa(n) }

func quote(s string) string { return strconv.Quote(s) }

func notFound(w http.ResponseWriter, id string) {
	http.Error(w, fmt.Sprintf("no installed plugin %s", id), http.StatusNotFound)
}
