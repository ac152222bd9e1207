package registry

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/escouade-dev/escouade-plugin/manifest"
)

// InstallOptions are what an install depends on besides the home.
type InstallOptions struct {
	// AppVersion is the app's version the manifest is loaded for
	// (escouade.min); "" is not checked.
	AppVersion string
	// Compile checks and compiles a module or bundle (run.wasm, run.js)
	// into the compile cache before it is installed, so that one the host
	// would refuse is not installed and its first start is quick:
	// modules.Compiler gives the host's. Nil refuses to install a module
	// or a bundle.
	Compile func(ctx context.Context, m *manifest.Manifest, progress func(string)) error
	// Progress hears the compile's progress lines; nil hears nothing.
	Progress func(string)
	// Proxy is the proxy a clone over https goes through, "" for none
	// (Settings › Network's is ReadNetwork(home).Proxy).
	Proxy string
}

// Offer is a plugin ready to be installed: read, validated, compiled and
// fingerprinted, with nothing recorded yet. Window is what to show the
// person; Accept records their yes. An offer from git holds a checkout
// under the home: Discard removes it when the person says no.
type Offer struct {
	// Manifest is the plugin's manifest as read and validated.
	Manifest *manifest.Manifest
	// Source is the git repository it was cloned from, "" for a folder.
	Source string
	// Previous is the install this one replaces, nil for a first install.
	Previous *Entry

	home    string
	consent Consent
}

// Prepare reads what to install — a plugin's folder, or a git repository
// (IsGitSource) cloned under the home — validates its manifest, compiles
// its module or bundle and fingerprints what it runs. An error is a
// sentence naming the file and what to fix; a clone refused is not kept.
func Prepare(ctx context.Context, home, source string, o InstallOptions) (*Offer, error) {
	dir, from, err := checkoutOf(ctx, home, source, o.Proxy)
	if err != nil {
		return nil, err
	}
	offer, err := prepareDir(ctx, home, dir, o)
	if err != nil {
		if from != "" {
			DiscardCheckout(home, dir)
		}
		return nil, err
	}
	offer.Source = from
	return offer, nil
}

// checkoutOf is the folder to install from what was given: the folder
// itself, or the checkout of a git repository cloned into the home.
func checkoutOf(ctx context.Context, home, source, proxy string) (dir, from string, err error) {
	if !IsGitSource(source) {
		dir, err = filepath.Abs(source)
		return dir, "", err
	}
	if from, err = SourceOf(source); err != nil {
		return "", "", err
	}
	dir, err = Clone(ctx, home, from, GitOptions{Proxy: proxy})
	return dir, from, err
}

func prepareDir(ctx context.Context, home, dir string, o InstallOptions) (*Offer, error) {
	m, err := manifest.Load(dir, manifest.LoadOptions{AppVersion: o.AppVersion})
	if err != nil {
		return nil, err
	}
	refused := func(err error) error {
		return fmt.Errorf("%s: not installed: %v", filepath.Join(dir, manifest.FileName), err)
	}
	if kind := m.Run.Kind(); kind == manifest.RunWASM || kind == manifest.RunJS {
		if o.Compile == nil {
			return nil, refused(errors.New("a module or a bundle is compiled before it is installed, and no compiler was given (InstallOptions.Compile: modules.Compiler)"))
		}
		if err := o.Compile(ctx, m, o.Progress); err != nil {
			return nil, refused(err)
		}
	}
	// What the window shows is what is recorded as consented to: a start
	// whose folder no longer matches it is refused.
	c, err := Fingerprint(m)
	if err != nil {
		return nil, refused(err)
	}
	reg, err := Open(home)
	if err != nil {
		return nil, err
	}
	offer := &Offer{Manifest: m, home: home, consent: c}
	if old, ok := reg.Get(m.ID); ok {
		offer.Previous = &old
	}
	return offer, nil
}

// Fingerprint is the digest of all the offer recorded as what it runs
// (Consent.Digest): a window carries it, so that a yes given to a window
// whose folder changed since is refused (the view's 409).
func (o *Offer) Fingerprint() string { return o.consent.Digest() }

// Granted is what Accept is given when the person changes nothing: all
// the plugin asks at a first install; at an update, what the person
// granted before that it still asks, so that what they took back
// stays taken back.
func (o *Offer) Granted() manifest.Permissions {
	if o.Previous != nil {
		return o.Previous.Granted.Intersect(o.Manifest.Permissions)
	}
	return o.Manifest.Permissions
}

// ErrChangedWhileShown is the refusal of an Accept whose folder changed
// since Prepare read it: what the person saw is not what would be
// recorded.
var ErrChangedWhileShown = errors.New("the folder changed while the window was open; read the plugin again and review what it asks now")

// Accept records the person's yes: the plugin installed with what they
// granted (kept to what it asks, in its order), its consent, and for a
// process the folder record; an update stays switched on or off as it
// was. The folder is read again first: if it no longer is what the window
// showed, nothing is recorded (ErrChangedWhileShown). It returns the
// entry recorded.
func (o *Offer) Accept(granted manifest.Permissions) (Entry, error) {
	return o.accept(granted, nil)
}

// AcceptDev is Accept of a development install: the person chose, in the
// install window, to have its later rebuilds and edits started without a
// review while its run and permissions stay as they see them now
// (DevScope, dev.go). An Accept later turns it back into a plain install.
func (o *Offer) AcceptDev(granted manifest.Permissions) (Entry, error) {
	scope := DevScopeOf(o.Manifest)
	return o.accept(granted, &scope)
}

func (o *Offer) accept(granted manifest.Permissions, dev *DevScope) (Entry, error) {
	m := o.Manifest
	now, folder, err := fingerprint(m)
	if err != nil {
		return Entry{}, fmt.Errorf("%s: not installed: %v", filepath.Join(m.Dir, manifest.FileName), err)
	}
	if now.Digest() != o.consent.Digest() {
		return Entry{}, fmt.Errorf("%s: not installed: %w", filepath.Join(m.Dir, manifest.FileName), ErrChangedWhileShown)
	}
	entry := Entry{ID: m.ID, Dir: m.Dir, Version: m.Version, Granted: m.Permissions.Intersect(granted), Consent: &now, Source: o.Source, Dev: dev}
	err = withLock(o.home, func() error {
		r, err := Open(o.home)
		if err != nil {
			return err
		}
		if old, ok := r.Get(m.ID); ok {
			entry.Disabled = old.Disabled
		}
		// The record first, under its own name: if the registry cannot be
		// written, the install it still names keeps its record.
		if err := recordFolder(o.home, m.ID, folder); err != nil {
			return err
		}
		r.Put(entry)
		if err := r.Save(); err != nil {
			return err
		}
		if now.Folder != "" {
			ForgetFolder(o.home, m.ID, now.Folder) // the records of earlier installs
		}
		return nil
	})
	if err != nil {
		return Entry{}, err
	}
	if reg, err := Open(o.home); err == nil {
		PruneCheckouts(o.home, m.Dir, reg)
	}
	return entry, nil
}

// Discard gives up the offer: a checkout cloned for it is removed, unless
// an install points to it.
func (o *Offer) Discard() {
	if o.Source != "" {
		DiscardCheckout(o.home, o.Manifest.Dir)
	}
}

// Admit is the check every start of an installed plugin passes: m must be
// installed from its very folder, and the folder be what the person
// consented to (Consent.Check). The host asks it before each start unless
// the app chose otherwise (host.Config.Admit); a plugin that is not
// installed is not started.
func Admit(home string, m *manifest.Manifest) error {
	_, err := AdmitProgram(home, m)
	return err
}

// AdmitProgram is Admit, and on a yes the SHA-256 of each file the
// program is, as consented (Consent.Files), for the transport to hold the
// bytes it reads to (transport.LaunchSpec.Program).
func AdmitProgram(home string, m *manifest.Manifest) (map[string]string, error) {
	a, err := AdmitStart(home, m)
	return a.Files, err
}

// AdmitStart is AdmitProgram, with the note of a development install
// whose folder changed within what was consented (dev.go): that change is
// recorded as consented, and the start let through without a review.
func AdmitStart(home string, m *manifest.Manifest) (Admission, error) {
	reg, err := Open(home)
	if err != nil {
		return Admission{}, fmt.Errorf("not started: %v", err)
	}
	en, ok := reg.Get(m.ID)
	if !ok {
		return Admission{}, fmt.Errorf("not started: it is not installed: install it first (escouade-plugin install %s, or Install in the Plugins view)", m.Dir)
	}
	if !sameDir(en.Dir, m.Dir) {
		return Admission{}, fmt.Errorf("not started: the folder %s is not the one installed (%s): install it from there first", m.Dir, en.Dir)
	}
	err = en.Consent.Check(home, m)
	var changed *ChangedError
	switch {
	case err == nil:
		return Admission{Files: en.Consent.Files}, nil
	case !errors.As(err, &changed):
		return Admission{}, err
	case devCheck(en, m, changed) != nil:
		return Admission{}, devCheck(en, m, changed)
	}
	return readmitDev(home, m, changed)
}

// AnyFolder admits every start, consented or not: the Admit of a folder
// the person runs themselves (escouade-plugin run DIR, the bench,
// escouade-plugin harness DIR), never of what an app installed.
func AnyFolder(*manifest.Manifest) error { return nil }

// DefaultHome is Escouade's home: $ESCOUADE_HOME, else ~/.escouade.
func DefaultHome() string {
	if h := os.Getenv("ESCOUADE_HOME"); h != "" {
		return h
	}
	dir, err := os.UserHomeDir()
	if err != nil {
		return ".escouade"
	}
	return filepath.Join(dir, ".escouade")
}
