package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/escouade-dev/escouade-plugin/manifest"
)

// A development install (docs/RATIONALE.md#why-does-a-development-install-compare-a-scope-not-a-digest) is one
// the person chose, at install, to have restarted without a review when
// its program or manifest changes, as long as what they consented to
// stays: its run and what it may reach. The choice is the Entry's Dev,
// written only by Offer.AcceptDev; nothing the plugin does reaches it.

// DevScope is what a development install's person consented to beyond
// the program's bytes: a folder whose scope is still this one is started
// without a review; any other change of it asks for one.
type DevScope struct {
	Run         *manifest.Run        `json:"run"`
	Permissions manifest.Permissions `json:"permissions"`
	Limits      manifest.Limits      `json:"limits"`
	Harnesses   []manifest.Harness   `json:"harnesses,omitempty"`
}

// DevScopeOf is the scope of m.
func DevScopeOf(m *manifest.Manifest) DevScope {
	return DevScope{Run: m.Run, Permissions: m.Permissions, Limits: m.Limits, Harnesses: m.Contributes.Harnesses}
}

// changed names the first part of s that now differs from, "" when none.
func (s DevScope) changed(now DevScope) string {
	parts := []struct {
		what      string
		was, then any
	}{
		{"run", s.Run, now.Run},
		{"permissions", s.Permissions, now.Permissions},
		{"limits", s.Limits, now.Limits},
		{"harnesses", s.Harnesses, now.Harnesses},
	}
	for _, p := range parts {
		was, _ := json.Marshal(p.was)
		then, _ := json.Marshal(p.then)
		if !bytes.Equal(was, then) {
			return p.what
		}
	}
	return ""
}

// DevRestarted starts the journal line of a development install started
// without a review (docs/protocol.md#development-installs).
const DevRestarted = "development install: started without a review"

// Admission is what a start of an installed plugin was let through with.
type Admission struct {
	// Files are the SHA-256 of each file the program is, as consented
	// (Consent.Files), for the transport to hold what it reads to.
	Files map[string]string
	// Note, when not empty, is the journal line of a development install
	// whose folder changed within its scope: its new folder was recorded
	// as consented, and it starts without a review.
	Note string
}

// devCheck is the check of a development install en whose folder no
// longer matches its consent (changed): nil when the change keeps to its
// scope, else the refusal saying which part changed and that it asks for
// a review.
func devCheck(en Entry, m *manifest.Manifest, changed *ChangedError) error {
	if en.Dev == nil || en.Consent == nil {
		return changed
	}
	if what := en.Dev.changed(DevScopeOf(m)); what != "" {
		return changedError(m, "a development install whose %s changed: a review is asked again, as at install", what)
	}
	return nil
}

// readmitDev records, under the lock, the folder of the development
// install of m as consented anew (its fingerprint, and for a process its
// folder record), once devCheck has let its change through. It returns
// the admission and its journal line.
func readmitDev(home string, m *manifest.Manifest, changed *ChangedError) (Admission, error) {
	c, folder, err := fingerprint(m)
	if err != nil {
		return Admission{}, changedError(m, "%v", err)
	}
	err = withLock(home, func() error {
		r, err := Open(home)
		if err != nil {
			return err
		}
		en, ok := r.Get(m.ID)
		if !ok || !sameDir(en.Dir, m.Dir) || en.Dev == nil {
			return errors.New("not started: its install changed while it was being started; start it again")
		}
		if err := devCheck(en, m, changed); err != nil {
			return err
		}
		if err := recordFolder(home, m.ID, folder); err != nil {
			return err
		}
		en.Consent = &c
		en.Version = m.Version
		r.Put(en)
		if err := r.Save(); err != nil {
			return err
		}
		if c.Folder != "" {
			ForgetFolder(home, m.ID, c.Folder)
		}
		return nil
	})
	if err != nil {
		return Admission{}, err
	}
	note := fmt.Sprintf("%s: %s, and its run and permissions are as you consented", DevRestarted, changed.What)
	return Admission{Files: c.Files, Note: note}, nil
}

// CheckEntry is the check of en's folder a start makes, without
// recording anything: nil when a start would be let through, a
// development install's change within its scope included.
func CheckEntry(home string, en Entry, m *manifest.Manifest) error {
	err := en.Consent.Check(home, m)
	var changed *ChangedError
	if err == nil || !errors.As(err, &changed) {
		return err
	}
	return devCheck(en, m, changed)
}
