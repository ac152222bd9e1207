package web

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/escouade-dev/escouade-plugin/harness"
	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/registry"
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
		if r.PathValue("id") == harness.ACPPluginID && (op == "enable" || op == "disable") {
			s.switchACP(w, op)
			return
		}
		en, rw, _, ok := s.installed(w, r)
		if !ok {
			return
		}
		if rw.Plugin == nil && op == "restart" {
			fail(w, http.StatusConflict, rw.State.Reason) // a folder that cannot be loaded cannot start
			return
		}
		s.changes.Lock()
		defer s.changes.Unlock()
		a, err := s.switchPlugin(context.WithoutCancel(r.Context()), op, en, rw.Plugin)
		if err != nil {
			fail(w, http.StatusConflict, err.Error())
			return
		}
		done(w, a)
	}
}

// Each change of the registry is made under its lock, read from the file
// as it is then (registry.Change), so that a change of another writer
// meanwhile (the CLI, another tab) is kept.
func (s *Server) switchPlugin(ctx context.Context, op string, en registry.Entry, p *host.Plugin) (answer, error) {
	switch op {
	case "restart":
		return s.restart(ctx, p)
	case "enable", "disable":
		en, err := registry.Change(s.home, en.ID, func(e *registry.Entry) error {
			e.Disabled = op == "disable"
			return nil
		})
		if err != nil {
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
	if err := registry.Uninstall(s.home, en.ID); err != nil {
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
		en, rw, _, ok := s.installed(w, r)
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
		asks := p.Manifest().Permissions
		msg := tr(s.lang, "done.revoke")
		if grant {
			msg = tr(s.lang, "done.grant")
		}
		en, err := registry.Change(s.home, en.ID, func(e *registry.Entry) error {
			if grant {
				e.Granted = e.Granted.Union(one.Intersect(asks)) // only what it asks
			} else {
				e.Granted = e.Granted.Without(one)
			}
			return nil
		})
		if err != nil {
			fail(w, http.StatusInternalServerError, err.Error())
			return
		}
		if err := p.SetGranted(context.WithoutCancel(r.Context()), en.Granted.Intersect(asks)); err != nil {
			fail(w, http.StatusInternalServerError, err.Error())
			return
		}
		done(w, answer{Message: msg, Reload: true})
	}
}

// restartSettle bounds how long Restart waits to say what the plugin
// became: the delay of initialize, and a margin for a start that crashes.
const restartSettle = 15 * time.Second

// restart restarts p, then says what it became once its start settled:
// running, or stopped and why (its folder changed since install, a
// fourth crash), rather than "Restarted." whatever came of it.
func (s *Server) restart(ctx context.Context, p *host.Plugin) (answer, error) {
	changes, cancel := s.states.subscribe() // before Restart: no change is missed
	defer cancel()
	if err := p.Restart(ctx); err != nil {
		return answer{}, err
	}
	st := settle(ctx, p, changes, restartSettle)
	v := s.stateOf(p.ID(), st)
	switch st.State {
	case host.StateReady:
		return answer{Message: tr(s.lang, "done.restart.ready")}, nil
	case host.StateStopped:
		return answer{Message: tr(s.lang, "done.restart.stopped", v.Reason)}, nil
	}
	return answer{Message: tr(s.lang, "done.restart.other", strings.ToLower(v.Label))}, nil
}

// settle waits until p's start has come to an end (neither starting nor
// restarting), reading its status again at each state event, within wait.
func settle(ctx context.Context, p *host.Plugin, changes <-chan []byte, wait time.Duration) host.Status {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		st := p.Status()
		if st.State != host.StateStarting && st.State != host.StateRestarting {
			return st
		}
		select {
		case _, open := <-changes:
			if !open {
				return p.Status() // the view closes, or fell behind: what is known now
			}
		case <-timer.C:
			return st
		case <-ctx.Done():
			return st
		}
	}
}

// switchACP switches the built-in ACP harness, as the CLI's enable and
// disable of dev.escouade.acp do: off, no described harness runs and
// their agents stay, marked Harness absent.
func (s *Server) switchACP(w http.ResponseWriter, op string) {
	s.changes.Lock()
	defer s.changes.Unlock()
	if err := harness.SetACPEnabled(s.home, op == "enable"); err != nil {
		fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	s.states.publishList()
	done(w, answer{Message: tr(s.lang, "done.acp."+op), Reload: true})
}
