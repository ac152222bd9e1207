package web

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/escouade-dev/escouade-plugin/internal/safetext"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/modules"
	"github.com/escouade-dev/escouade-plugin/registry"
)

var errNoFolder = errors.New("no folder given: type the folder of the plugin")

// window is the install window: what the plugin runs and each capability
// it asks for, each with its own toggle, before the user says yes. For an
// update it says what changed in what it asks.
type window struct {
	Dir, ID, Name, Version, Description string
	// Source is the git repository Dir was cloned from, "" for a folder.
	Source string

	Runs     string // "Runs a program on your computer, with your rights"…
	Command  string // the process's command line
	Isolated bool
	// Environment says which variables of the person's environment a
	// program on their computer gets (the consent text's own).
	Environment string
	Caps        []capability
	// Harnesses are the commands the agents of its harnesses run.
	Harnesses []string

	Update     bool
	OldVersion string
	OldRuns    string       // what it ran before, when that changed
	Gone       []capability // what the installed version asked and this one does not

	// Fingerprint is the digest of what the window shows it runs (the
	// manifest, the program, a process's every file): the install is
	// refused if the folder changed while the window was open.
	Fingerprint string
	// Review is why an installed plugin's folder is no longer what the
	// user consented to, when the window is that review.
	Review string

	// Error is why the folder cannot be installed: the same text as the
	// CLI's install gives (field and fix).
	Error string
	// Relative says which folder a relative one typed was read from: the
	// folder serve runs in, which the person may not have in mind.
	Relative string
}

// relativeNote says from which folder a relative folder typed was read,
// "" for a whole path (or a clone, whose folder the home holds).
func (s *Server) relativeNote(typed, abs string) string {
	if filepath.IsAbs(typed) || strings.HasPrefix(abs, filepath.Join(s.home, registry.GitDir)+string(filepath.Separator)) {
		return ""
	}
	cwd, err := os.Getwd()
	if err != nil {
		cwd = filepath.Dir(abs)
	}
	return tr(s.lang, "dev.relative", safetext.Line(typed), safetext.Line(cwd), safetext.Line(abs))
}

type capability struct {
	Kind, KindLabel, FieldID string
	Value, Shown             string // as asked, and as shown
	Checked, New             bool
}

// installWindow reads the folder and makes its window. Nothing runs.
func (s *Server) installWindow(ctx context.Context, typed string) window {
	w := window{Dir: typed}
	dir, source, err := s.checkout(ctx, typed)
	if err != nil {
		w.Error = err.Error()
		return w
	}
	w.Source = source
	abs, err := absDir(dir)
	if err != nil {
		w.Error = err.Error()
		return w
	}
	w.Dir = abs
	w.Relative = s.relativeNote(dir, abs)
	m, err := s.load(abs)
	if err != nil {
		w.Error = err.Error()
		return w
	}
	consent, err := registry.Fingerprint(m)
	if err != nil {
		w.Error = fmt.Sprintf("%s: cannot be installed: %v", filepath.Join(m.Dir, manifest.FileName), err)
		return w
	}
	w.Fingerprint = consent.Digest()
	w.ID, w.Name, w.Version, w.Description = m.ID, safetext.Line(m.Name.In(s.lang)), safetext.Line(m.Version), safetext.Line(m.Description.In(s.lang))
	w.Runs, w.Command, w.Isolated = s.runs(m)
	w.Harnesses = registry.HarnessCommands(m) // the consent text's own, escaped
	w.Environment = registry.WindowOf(m, s.lang).Environment
	reg, err := registry.Open(s.home)
	if err != nil {
		w.Error = err.Error()
		return w
	}
	old, isUpdate := reg.Get(m.ID)
	var before *manifest.Manifest
	if isUpdate {
		w.Update, w.OldVersion = true, old.Version
		if p, ok := s.host.Plugin(m.ID); ok {
			before = p.Manifest()
		}
	}
	w.Caps = s.capabilities(m, old, before)
	if isUpdate {
		w.Review = s.reviewReason(m.ID)
		w.OldRuns = s.oldRuns(old, before, w)
	}
	if before != nil {
		for _, it := range permItems(s.lang, before.Permissions.Without(m.Permissions), manifest.Permissions{}) {
			w.Gone = append(w.Gone, capability{Kind: it.Kind, KindLabel: it.KindLabel, Value: it.Value, Shown: it.Shown})
		}
	}
	return w
}

// oldRuns is what the installed plugin ran, when the window shows
// another program: what the user consented to at install (the registry's
// record), else the manifest the host has. The host's manifest may be the
// changed folder's already, so the record comes first.
func (s *Server) oldRuns(old registry.Entry, before *manifest.Manifest, w window) string {
	was := before
	if c := old.Consent; c != nil {
		was = &manifest.Manifest{Run: &manifest.Run{Command: c.Command, JS: c.JS}}
		if c.Run == manifest.RunWASM {
			was.Run.WASM = registry.ModuleFile
		}
	}
	if was == nil {
		return ""
	}
	runs, cmd, _ := s.runs(was)
	if runs == w.Runs && cmd == w.Command {
		return ""
	}
	return strings.TrimSuffix(runs+": "+cmd, ": ")
}

// capabilities lists what m asks, each ticked as the CLI would grant it:
// all of it at a first install; at an update, what the user granted
// before and the new version still asks, while a capability new in this
// version waits for the user to tick it.
func (s *Server) capabilities(m *manifest.Manifest, old registry.Entry, before *manifest.Manifest) []capability {
	granted := m.Permissions
	if before != nil {
		granted = old.Granted.Intersect(m.Permissions)
	}
	var out []capability
	for i, it := range permItems(s.lang, m.Permissions, granted) {
		c := capability{Kind: it.Kind, KindLabel: it.KindLabel, Value: it.Value, Shown: it.Shown, Checked: it.Granted, FieldID: "cap-" + itoa(i)}
		if before != nil {
			c.New = !slices.Contains(kindList(before.Permissions, it.Kind), it.Value)
		}
		out = append(out, c)
	}
	return out
}

// runs is the sentence of the install window about what the plugin runs.
func (s *Server) runs(m *manifest.Manifest) (text, command string, isolated bool) {
	switch m.Run.Kind() {
	case manifest.RunProcess:
		return tr(s.lang, "runs.process"), strings.Join(safetext.Lines(m.Run.Command), " "), false
	case manifest.RunJS, manifest.RunWASM:
		return tr(s.lang, "runs.isolated"), "", true
	}
	return tr(s.lang, "runs.none"), "", false
}

// postInstall records the plugin with what the user granted, as the CLI's
// install does, and adds it to the host (or updates it there). It starts
// nothing: the program starts at its first activation.
func (s *Server) postInstall(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		fail(w, http.StatusBadRequest, err.Error())
		return
	}
	abs, err := absDir(strings.TrimSpace(r.PostForm.Get("dir")))
	if err != nil {
		fail(w, http.StatusBadRequest, err.Error())
		return
	}
	offer, err := registry.Prepare(r.Context(), s.home, abs, registry.InstallOptions{AppVersion: s.opts.Host.AppVersion, Compile: s.compile()})
	if err != nil {
		fail(w, http.StatusUnprocessableEntity, err.Error())
		return
	}
	m := offer.Manifest
	if shown := r.PostForm.Get("fingerprint"); shown != "" && shown != offer.Fingerprint() {
		fail(w, http.StatusConflict, fmt.Sprintf("%s: not installed: its manifest or a file it runs changed while the window was open; read the plugin again and review what it asks now", filepath.Join(m.Dir, manifest.FileName)))
		return
	}
	offer.Source = s.gitSourceOf(abs, r.PostForm)
	chosen := manifest.Permissions{Secrets: r.PostForm["secrets"], Network: r.PostForm["network"],
		Files: r.PostForm["files"], Programs: r.PostForm["programs"]}
	// "In development" is the person's tick in the window they answer
	// (registry.Offer.AcceptDev); nothing else sets it.
	dev := r.PostForm.Get("dev") == "1"
	if err := s.install(context.WithoutCancel(r.Context()), offer, chosen, dev); err != nil {
		status := http.StatusInternalServerError
		if errors.Is(err, registry.ErrChangedWhileShown) {
			status = http.StatusConflict
		}
		fail(w, status, err.Error())
		return
	}
	done(w, answer{Message: tr(s.lang, "done.install"), Redirect: "/plugins/" + m.ID})
}

// compile is what an install compiles a module or bundle with: the
// view's Precompile, else the host's compiler.
func (s *Server) compile() func(ctx context.Context, m *manifest.Manifest, progress func(string)) error {
	if s.opts.Precompile == nil {
		return modules.Compiler(s.home, "")
	}
	return func(ctx context.Context, m *manifest.Manifest, _ func(string)) error {
		return s.opts.Precompile(ctx, m)
	}
}

// install records the person's yes to offer, with what they chose (kept
// to what it asks), and adds the plugin to the host (or updates it
// there). It starts nothing: the program starts at its first activation.
func (s *Server) install(ctx context.Context, offer *registry.Offer, chosen manifest.Permissions, dev bool) error {
	s.changes.Lock()
	defer s.changes.Unlock()
	accept := offer.Accept
	if dev {
		accept = offer.AcceptDev
	}
	entry, err := accept(chosen)
	if err != nil {
		return err
	}
	m := offer.Manifest
	s.noteReview(m.ID, nil) // reviewed: what it runs now is what the user said yes to
	defer s.states.publishList()
	p, ok := s.host.Plugin(m.ID)
	if !ok {
		s.add(entry)
		return nil
	}
	// An update, or a plugin installed again after Uninstall.
	if err := p.Update(ctx, m); err != nil {
		return err
	}
	if err := p.SetGranted(ctx, entry.Granted); err != nil {
		return err
	}
	if !entry.Disabled {
		p.Enable()
	}
	return nil
}

func fileMissing(path string) bool {
	_, err := os.Stat(path)
	return errors.Is(err, fs.ErrNotExist)
}
