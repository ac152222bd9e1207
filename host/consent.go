package host

import (
	"fmt"
	"time"

	"github.com/escouade-dev/escouade-plugin/journal"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/registry"
)

// admitStart is asked before every start: Config.Admit when the app gave
// one, else the consent check of the home's record, told to
// Config.Admitted, which also gives the digests of the program's files
// the transport holds what it reads to.
func (p *Plugin) admitStart(m *manifest.Manifest) (map[string]string, error) {
	if p.admit != nil {
		return nil, p.admit(m)
	}
	a, err := registry.AdmitStart(p.h.opts.Home, m)
	if p.admitted != nil {
		p.admitted(m, err)
	}
	if a.Note != "" {
		p.journal.Write(journal.TagStart, a.Note) // a development install, started without a review
	}
	return a.Files, err
}

// settle records a consent-checked plugin's folder as its program left
// it (registry.Settle, which keeps it for the kinds whose every file is
// program), once it has answered initialize and again once it has ended,
// and says in the journal under tag what it recorded that was not there:
// its next start takes that as its own.
func (p *Plugin) settle(m *manifest.Manifest, launched time.Time, tag string) {
	if p.admit != nil {
		return
	}
	what, err := registry.Settle(p.h.opts.Home, m, launched)
	switch {
	case err != nil:
		p.journal.Write(tag, "what its program wrote in its own folder could not be recorded ("+err.Error()+"): its next start asks for a review")
	case what != "":
		p.journal.Write(tag, "its folder as its program left it is recorded as its own ("+what+"): its next start takes it as it is")
	}
}

// AddInstalled adds the plugin id installed under the host's home as the
// person left it: its manifest read from its folder, what they granted,
// their settings, switched on or off. Its starts are consent-checked
// (Config.Admit nil).
func (h *Host) AddInstalled(id string) (*Plugin, error) {
	reg, err := registry.Open(h.opts.Home)
	if err != nil {
		return nil, err
	}
	en, ok := reg.Get(id)
	if !ok {
		return nil, fmt.Errorf("no installed plugin %s in %s (registry.Prepare and Offer.Accept install one)", id, h.opts.Home)
	}
	m, err := manifest.Load(en.Dir, manifest.LoadOptions{AppVersion: h.opts.AppVersion})
	if err != nil {
		return nil, err
	}
	settings, err := registry.LoadSettings(h.opts.Home, id)
	if err != nil {
		return nil, err
	}
	granted := en.Granted
	return h.Add(m, Config{Granted: &granted, Settings: settings, Disabled: en.Disabled})
}
