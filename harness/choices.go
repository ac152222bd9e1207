package harness

import (
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/registry"
)

// Choice is a harness an app offers in its Harness menu: a described
// harness of an installed, enabled plugin.
type Choice struct {
	ID     string // plugin:<plugin>:<harness>
	Plugin string
	Name   string // in the app's language
	Modes  []ModeChoice
	Models []ModelChoice
}

// ModeChoice is an app mode the harness offers (OfferedModes), with the
// meaning its caps.modes gives it, if any.
type ModeChoice struct{ ID, Meaning string }

// ModelChoice is an entry of the harness's models menu.
type ModelChoice struct{ ID, Label string }

// Harnesses lists the harnesses a new agent may run now: every described
// harness of every installed, enabled plugin whose manifest reads, none
// while the ACP harness is switched off.
func (a *Agents) Harnesses() ([]Choice, error) {
	on, err := ACPEnabled(a.opts.Home)
	if err != nil || !on {
		return nil, err
	}
	reg, err := registry.Open(a.opts.Home)
	if err != nil {
		return nil, err
	}
	var out []Choice
	for _, e := range reg.List() {
		if e.Disabled {
			continue
		}
		m, err := manifest.Load(e.Dir, manifest.LoadOptions{AppVersion: a.opts.AppVersion})
		if err != nil {
			continue // the Plugins view says why it cannot be loaded
		}
		for i := range m.Contributes.Harnesses {
			if h := &m.Contributes.Harnesses[i]; h.Described() {
				out = append(out, a.choiceOf(m.ID, h))
			}
		}
	}
	return out, nil
}

func (a *Agents) choiceOf(plugin string, h *manifest.Harness) Choice {
	lang := or(a.opts.Lang, "en")
	c := Choice{ID: ID(plugin, h.ID), Plugin: plugin, Name: h.Name.In(lang)}
	for _, id := range OfferedModes(h) {
		mc := ModeChoice{ID: id}
		for _, m := range h.Caps.Modes {
			if m.ID == id {
				mc.Meaning = m.Meaning.In(lang)
			}
		}
		c.Modes = append(c.Modes, mc)
	}
	for _, m := range h.Models {
		c.Models = append(c.Models, ModelChoice{ID: m.ID, Label: or(m.Label.In(lang), m.ID)})
	}
	return c
}
