package web

import (
	"os"
	"strings"

	"github.com/escouade-dev/escouade-plugin/harness"
	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/internal/safetext"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/registry"
)

// stateView is a plugin's state as the page shows it; it is also the data
// of a "state" event.
type stateView struct {
	ID      string `json:"id"`
	State   string `json:"state"` // a host.State, or "absent", "not-installed" or "broken"
	Label   string `json:"label"` // the state in the page's language
	Reason  string `json:"reason"`
	Crashes int    `json:"crashes"`
	PID     int    `json:"pid"`
}

func (s *Server) stateOf(id string, st host.Status) stateView {
	return stateView{ID: id, State: string(st.State), Label: tr(s.lang, "state."+string(st.State)),
		Reason: s.viewReason(st.Reason), Crashes: st.Crashes, PID: st.PID}
}

// changedPrefix starts the reason of a start refused because the folder
// changed since install (registry.ChangedError), whatever it changed.
var changedPrefix, _, _ = strings.Cut((&registry.ChangedError{}).Error(), " (")

// viewReason is a stop reason as the view shows it. A folder that changed
// since install is said once on the page, by the review beside the state
// with its Review link; the reason's own way to review (the CLI's install,
// "or Review in the Plugins view") would send the person to the view they
// are in.
func (s *Server) viewReason(reason string) string {
	if strings.HasPrefix(reason, changedPrefix) {
		return tr(s.lang, "state.review")
	}
	return reason
}

// row is one installed plugin in the list and at the top of its page.
type row struct {
	ID, Name, Version, Kind, Dir, Description string
	Disabled                                  bool
	Runs                                      bool   // it has a program Restart can start
	Review                                    string // why its folder needs a review, if it does
	Source, Commit                            string // the git repository it was installed from, and its commit
	// Builtin is the ACP harness, built into the host: no folder, no page,
	// switched on and off as the CLI's enable and disable do.
	Builtin  bool
	State    stateView
	Manifest *manifest.Manifest
	Plugin   *host.Plugin
	Entry    registry.Entry
}

func (s *Server) rows(reg *registry.Registry) []row {
	// The ACP harness comes first, as the CLI's list shows it: the list is
	// where a person looks for what "Harness absent" names.
	out := []row{s.acpRow()}
	for _, en := range reg.List() {
		out = append(out, s.rowOf(en))
	}
	return out
}

func (s *Server) rowOf(en registry.Entry) row {
	r := row{ID: en.ID, Name: en.ID, Version: en.Version, Dir: en.Dir, Disabled: en.Disabled, Entry: en}
	if en.Source != "" {
		r.Source, r.Commit = safetext.Line(en.Source), s.checkoutCommit(en.Dir)
	}
	p, ok := s.host.Plugin(en.ID)
	if !ok {
		why, _ := s.brokenReason(en.ID)
		r.State = stateView{ID: en.ID, State: "broken", Label: tr(s.lang, "state.broken"), Reason: why}
		return r
	}
	m := p.Manifest()
	r.Plugin, r.Manifest = p, m
	// Manifest texts are shown with control and bidirectional characters
	// escaped, as the CLI prints them: a name must not reorder the page.
	r.Name, r.Version, r.Description = safetext.Line(m.Name.In(s.lang)), safetext.Line(m.Version), safetext.Line(m.Description.In(s.lang))
	r.Kind = s.kindOf(m)
	r.Runs = m.Run.Kind() != manifest.RunNone && len(m.Activation) > 0
	r.State = s.stateOf(en.ID, p.Status())
	r.Review = s.reviewReason(en.ID)
	if r.State.State != string(host.StateDisabled) && len(describedHarnesses(m)) > 0 {
		if on, _ := harness.ACPEnabled(s.home); !on {
			// Its harnesses are gone with the ACP harness: its agents are
			// "Harness absent", as the agents listing says.
			r.State.State, r.State.Label = "absent", harness.Absent
			r.State.Reason = "the ACP harness " + harness.ACPPluginID + " is disabled"
		} else if why, missing := s.agentNotInstalled(m); missing {
			r.State.State, r.State.Label, r.State.Reason = "not-installed", tr(s.lang, "state.not-installed"), safetext.Line(why)
		}
	}
	return r
}

// acpRow is the built-in ACP harness as a row: enabled or disabled.
func (s *Server) acpRow() row {
	r := row{ID: harness.ACPPluginID, Name: tr(s.lang, "builtin.acp.name"), Version: s.opts.Host.AppVersion,
		Kind: tr(s.lang, "builtin.acp.kind"), Description: tr(s.lang, "builtin.acp.desc"), Builtin: true}
	on, err := harness.ACPEnabled(s.home)
	r.Disabled = !on
	r.State = stateView{ID: r.ID, State: "enabled", Label: tr(s.lang, "state.enabled")}
	switch {
	case err != nil:
		r.State = stateView{ID: r.ID, State: "broken", Label: tr(s.lang, "state.broken"), Reason: err.Error()}
	case !on:
		r.State = stateView{ID: r.ID, State: string(host.StateDisabled), Label: tr(s.lang, "state.disabled")}
	}
	return r
}

func (s *Server) kindOf(m *manifest.Manifest) string {
	k := tr(s.lang, "kind."+kindKey(m.Run.Kind()))
	if len(describedHarnesses(m)) > 0 {
		k += " · " + tr(s.lang, "kind.harness")
	}
	return k
}

func kindKey(k manifest.RunKind) string {
	switch k {
	case manifest.RunProcess:
		return "process"
	case manifest.RunJS:
		return "js"
	case manifest.RunWASM:
		return "wasm"
	}
	return "none"
}

func describedHarnesses(m *manifest.Manifest) []manifest.Harness {
	var out []manifest.Harness
	for _, h := range m.Contributes.Harnesses {
		if h.Described() {
			out = append(out, h)
		}
	}
	return out
}

// agentNotInstalled reports whether m describes harnesses none of whose
// programs can be found: the agent is not installed on this computer (its
// harness is there; "Harness absent" is for a harness that is gone).
func (s *Server) agentNotInstalled(m *manifest.Manifest) (string, bool) {
	hs := describedHarnesses(m)
	if len(hs) == 0 {
		return "", false
	}
	var why []string
	for i := range hs {
		_, err := harness.Locate(&hs[i], s.env())
		if err == nil {
			return "", false
		}
		why = append(why, err.Error())
	}
	return strings.Join(why, "; "), true
}

func (s *Server) env() []string {
	if s.opts.Host.Env != nil {
		return s.opts.Host.Env
	}
	return os.Environ()
}
