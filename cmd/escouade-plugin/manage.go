package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/escouade-dev/escouade-plugin/harness"
	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/internal/registry"
	"github.com/escouade-dev/escouade-plugin/internal/safetext"
	"github.com/escouade-dev/escouade-plugin/journal"
	"github.com/escouade-dev/escouade-plugin/manifest"
	netsvc "github.com/escouade-dev/escouade-plugin/services/net"
)

// homeFlags parses the flags of the commands that only need the home.
func homeFlags(name string, args []string, extra func(*flag.FlagSet)) (home string, asJSON bool, pos []string, err error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.StringVar(&home, "home", "", "home folder (default $ESCOUADE_HOME, else ~/.escouade)")
	fs.BoolVar(&asJSON, "json", false, "JSON output")
	if extra != nil {
		extra(fs)
	}
	pos, err = parse(fs, args)
	if err != nil {
		return "", false, nil, err
	}
	if home == "" {
		home = host.DefaultHome()
	}
	return home, asJSON, pos, nil
}

func cmdInstall(e env, args []string) (err error) {
	var lang, proxy string
	home, asJSON, pos, err := homeFlags("install", args, func(fs *flag.FlagSet) {
		fs.StringVar(&lang, "lang", "en", "language of the texts")
		fs.StringVar(&proxy, "proxy", "", "the proxy a clone over https goes through (default: Settings › Network's)")
	})
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one plugin folder or git repository: escouade-plugin install DIR|URL (escouade-plugin help install)")
	}
	dir, source, err := installSource(home, pos[0], proxy)
	if err != nil {
		return err
	}
	if source != "" {
		fmt.Fprintf(e.stderr, "escouade-plugin install: cloned %s into %s\n", safetext.Line(source), dir)
		defer func() {
			if err != nil { // a checkout refused is not kept
				registry.DiscardCheckout(home, dir)
			}
		}()
	}
	m, err := manifest.Load(dir, manifest.LoadOptions{AppVersion: host.AppVersion})
	if err != nil {
		return err
	}
	warnNoActivation(e.stderr, m)
	// A module is checked and compiled now, so that a first start is quick
	// and a module the host would refuse is not installed.
	if _, err := precompile(context.Background(), home, m, progressTo(e.stderr, asJSON)); err != nil {
		return fmt.Errorf("%s: not installed: %v", filepath.Join(dir, manifest.FileName), err)
	}
	// What the window below shows is what is recorded as consented to: a
	// start whose folder no longer matches it is refused.
	consent, err := registry.Fingerprint(m)
	if err != nil {
		return fmt.Errorf("%s: not installed: %v", filepath.Join(dir, manifest.FileName), err)
	}
	reg, err := registry.Open(home)
	if err != nil {
		return err
	}
	entry := registry.Entry{ID: m.ID, Dir: dir, Version: m.Version, Granted: m.Permissions, Consent: &consent, Source: source}
	if old, ok := reg.Get(m.ID); ok {
		// An update: what the user took back stays taken back, and it stays
		// switched as it was.
		entry.Granted = old.Granted.Intersect(m.Permissions)
		entry.Disabled = old.Disabled
	}
	reg.Put(entry)
	if err := reg.Save(); err != nil {
		return err
	}
	registry.PruneCheckouts(home, dir, reg)
	w := installWindow(m, lang)
	if asJSON {
		return writeJSON(e.stdout, w)
	}
	w.print(e.stdout)
	return nil
}

// installSource is the folder to install from what the user typed: the
// folder itself, or the checkout of a git repository cloned into the
// home. Installing a repository again fetches its default branch again:
// that is how a plugin installed from git is updated, with the window
// shown again for what it asks now.
func installSource(home, arg, proxyFlag string) (dir, source string, err error) {
	if !registry.IsGitSource(arg) {
		dir, err = filepath.Abs(arg)
		return dir, "", err
	}
	proxy, err := appProxy(home, proxyFlag)
	if err != nil {
		return "", "", err
	}
	if arg, err = registry.SourceOf(arg); err != nil {
		return "", "", err
	}
	dir, err = registry.Clone(context.Background(), home, arg, registry.GitOptions{Proxy: proxy})
	return dir, arg, err
}

// appProxy is the proxy of the app: --proxy when given, else Settings ›
// Network's, kept under the home.
func appProxy(home, flagValue string) (string, error) {
	if flagValue != "" {
		if err := registry.CheckProxy(flagValue); err != nil {
			return "", usagef("--proxy: %v", err)
		}
		return flagValue, nil
	}
	n, err := registry.ReadNetwork(home)
	return n.Proxy, err
}

// window is what the install window shows before the user says yes.
type window struct {
	ID        string               `json:"id"`
	Name      string               `json:"name"`
	Version   string               `json:"version"`
	Runs      string               `json:"runs"`
	Isolated  bool                 `json:"isolated"`
	Asks      manifest.Permissions `json:"asks"`
	Harnesses []string             `json:"harnesses,omitempty"`
	// FetchNote says what limits.netMaxBytes gives when it is past what a
	// net/fetch answer carries.
	FetchNote string `json:"fetchNote,omitempty"`
}

// programGrantSentence says what a program grant gives: a program runs
// outside the isolation, and many run any other one (git -c alias.x=!cmd,
// sh -c, python -c, node -e, make).
const programGrantSentence = "Each program it asks for runs outside the isolation, on your computer, with your rights; some, such as git, sh, python, node or make, run any other program they are told to."

// fetchNote is the line of the window about limits.netMaxBytes, "" when
// net/fetch can carry all of it.
func fetchNote(l manifest.Limits) string {
	if l.NetMaxBytes <= netsvc.MaxFetchBytes {
		return ""
	}
	return fmt.Sprintf("Its limits.netMaxBytes of %d bytes holds for net/stream; a net/fetch answer carries at most %d bytes (%d MiB) of body.",
		min(l.NetMaxBytes, netsvc.MaxMaxBytes), netsvc.MaxFetchBytes, netsvc.MaxFetchBytes>>20)
}

// installWindow builds what the install window shows. Every text comes
// from the manifest, which anyone may have written: control characters
// (ANSI escapes, NUL, line breaks) and bidirectional controls are shown
// escaped, so that nothing acts on the terminal, hides a word or fakes a
// line of the window.
func installWindow(m *manifest.Manifest, lang string) window {
	w := window{ID: safetext.Line(m.ID), Name: safetext.Line(m.Name.In(lang)), Version: safetext.Line(m.Version)}
	w.Asks = manifest.Permissions{
		Secrets:  safetext.Lines(m.Permissions.Secrets),
		Network:  safetext.Lines(m.Permissions.Network),
		Files:    safetext.Lines(m.Permissions.Files),
		Programs: safetext.Lines(m.Permissions.Programs),
	}
	w.FetchNote = fetchNote(m.Limits)
	switch m.Run.Kind() {
	case manifest.RunNone:
		w.Runs = "runs no program of its own: it only describes what it adds"
	case manifest.RunProcess:
		w.Runs = "runs a program on your computer, with your rights: " + strings.Join(safetext.Lines(m.Run.Command), " ")
	default:
		w.Isolated = true
		w.Runs = "runs isolated inside Escouade (WebAssembly): it reaches only what it asks below"
		if asksNothing(m.Permissions) {
			w.Runs = "runs isolated inside Escouade (WebAssembly) and asks for nothing: no secret, network host, folder or program"
		}
		if len(m.Permissions.Programs) > 0 {
			w.Runs += "; the programs it asks for run outside"
		}
	}
	for _, hs := range m.Contributes.Harnesses {
		var args []string
		if hs.ACP != nil {
			args = hs.ACP.Args
		}
		if len(hs.Locate.Names) == 0 && len(args) == 0 {
			continue // it names no program: nothing of it runs
		}
		cmd := strings.Join(append([]string{firstName(hs.Locate.Names)}, args...), " ")
		w.Harnesses = append(w.Harnesses, safetext.Line(cmd))
	}
	return w
}

// asksNothing reports whether the permissions name no secret, host,
// folder or program, so the window does not point to a list that is empty.
func asksNothing(p manifest.Permissions) bool {
	return len(p.Secrets)+len(p.Network)+len(p.Files)+len(p.Programs) == 0
}

func firstName(names []string) string {
	if len(names) == 0 {
		return "?"
	}
	return names[0]
}

func (w window) print(out io.Writer) {
	fmt.Fprintf(out, "Install %s %s (%s)\n", w.Name, w.Version, w.ID)
	fmt.Fprintf(out, "It %s.\n", w.Runs)
	asks := []struct {
		what string
		list []string
	}{
		{"secrets", w.Asks.Secrets}, {"network hosts", w.Asks.Network},
		{"folders", w.Asks.Files}, {"programs", w.Asks.Programs},
	}
	for _, a := range asks {
		if len(a.list) > 0 {
			fmt.Fprintf(out, "It asks for %s: %s\n", a.what, strings.Join(a.list, ", "))
		}
	}
	if len(w.Asks.Programs) > 0 {
		fmt.Fprintln(out, programGrantSentence)
	}
	if w.FetchNote != "" {
		fmt.Fprintln(out, w.FetchNote)
	}
	for _, h := range w.Harnesses {
		fmt.Fprintf(out, "Its agents run a program on your computer, with your rights: %s\n", h)
	}
	fmt.Fprintln(out, "Installed.")
}

func cmdList(e env, args []string) error {
	home, asJSON, pos, err := homeFlags("list", args, nil)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("list takes no arguments")
	}
	reg, err := registry.Open(home)
	if err != nil {
		return err
	}
	acpOn, err := harness.ACPEnabled(home)
	if err != nil {
		return err
	}
	// The ACP harness is built into the host: listed first, switched like
	// the others, with no folder of its own.
	entries := []listEntry{{Entry: registry.Entry{ID: harness.ACPPluginID, Version: host.AppVersion, Disabled: !acpOn}, Builtin: true}}
	for _, en := range reg.List() {
		entries = append(entries, listEntry{Entry: en})
	}
	if asJSON {
		return writeJSON(e.stdout, entries)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tVERSION\tSTATE\tFOLDER")
	for _, en := range entries {
		state := "enabled"
		if en.Disabled {
			state = "disabled"
		}
		dir := en.Dir
		if en.Builtin {
			dir = "(built in: it runs the described harnesses)"
		} else {
			var changed *registry.ChangedError
			if errors.As(consented(en.Entry), &changed) {
				state += ", needs review"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", en.ID, en.Version, state, dir)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(entries) == 1 {
		fmt.Fprintln(e.stdout, "no plugin installed (escouade-plugin install DIR)")
	}
	return nil
}

// listEntry is a line of list: a registry entry, or the built-in ACP
// harness.
type listEntry struct {
	registry.Entry
	Builtin bool `json:"builtin,omitempty"`
}

func cmdJournal(e env, args []string) error {
	var n int
	var follow bool
	home, asJSON, pos, err := homeFlags("journal", args, func(fs *flag.FlagSet) {
		fs.IntVar(&n, "n", 500, "how many last lines")
		fs.BoolVar(&follow, "f", false, "keep writing new lines as they come")
	})
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want a plugin id: escouade-plugin journal ID [-n N] [-f] (escouade-plugin list shows the ids)")
	}
	if n < 0 {
		return usagef("-n %d: want a number of lines, 0 or more", n)
	}
	if _, err := os.Stat(journal.Path(home, pos[0])); err != nil {
		return fmt.Errorf("no journal for %s in %s (a plugin's journal starts with its first run; escouade-plugin list shows the installed ones)", pos[0], home)
	}
	lines, err := journal.ReadTail(home, pos[0], n)
	if err != nil {
		return err
	}
	if asJSON {
		if lines == nil {
			lines = []string{}
		}
		if err := writeJSON(e.stdout, map[string]any{"id": pos[0], "lines": lines}); err != nil {
			return err
		}
	} else {
		for _, l := range lines {
			fmt.Fprintln(e.stdout, l)
		}
	}
	if follow {
		return followJournal(e, journal.Path(home, pos[0]), asJSON)
	}
	return nil
}

// cmdSwitch changes what the registry records for an installed plugin. A
// running host applies the same change through its own console or API.
func cmdSwitch(op string) func(e env, args []string) error {
	return func(e env, args []string) error {
		home, asJSON, pos, err := homeFlags(op, args, nil)
		if err != nil {
			return err
		}
		if len(pos) != 1 {
			return usagef("want a plugin id: escouade-plugin %s ID (escouade-plugin list shows the ids)", op)
		}
		if pos[0] == harness.ACPPluginID {
			return switchACP(e, home, op, asJSON)
		}
		reg, err := registry.Open(home)
		if err != nil {
			return err
		}
		en, ok := reg.Get(pos[0])
		if !ok {
			return fmt.Errorf("no installed plugin %s (escouade-plugin list shows them)", pos[0])
		}
		switch op {
		case "restart":
			if en.Disabled {
				return fmt.Errorf("%s is disabled: enable it first (escouade-plugin enable %s)", en.ID, en.ID)
			}
		}
		if op == "restart" || op == "enable" {
			if err := consented(en); err != nil {
				why := strings.TrimPrefix(err.Error(), "not started: ")
				return fmt.Errorf("%s not %s: %s", en.ID, map[string]string{"restart": "restarted", "enable": "enabled"}[op], why)
			}
		}
		switch op {
		case "enable":
			en.Disabled = false
		case "disable":
			en.Disabled = true
		}
		reg.Put(en)
		if err := reg.Save(); err != nil {
			return err
		}
		msg := map[string]string{
			"enable":  "enabled: it starts at its next activation",
			"disable": "disabled: it does not start until enabled, neither in the app nor under escouade-plugin run of its folder",
			"restart": "restarted: its crashes are forgotten; it starts at its next activation",
		}[op]
		if asJSON {
			return writeJSON(e.stdout, map[string]any{"id": en.ID, "disabled": en.Disabled, "message": msg})
		}
		fmt.Fprintf(e.stdout, "%s %s\n", en.ID, msg)
		return nil
	}
}

// consented checks an installed plugin's folder against what the user
// consented to at install, as every start of the host does.
func consented(en registry.Entry) error {
	m, err := manifest.Load(en.Dir, manifest.LoadOptions{AppVersion: host.AppVersion})
	if err != nil {
		return err
	}
	return en.Consent.Check(m)
}

// switchACP switches the built-in ACP harness: off, every described
// harness is absent and its agents are kept, marked Harness absent, with
// their conversations; on, they are back.
func switchACP(e env, home, op string, asJSON bool) error {
	on, err := harness.ACPEnabled(home)
	if err != nil {
		return err
	}
	var msg string
	switch op {
	case "restart":
		if !on {
			return fmt.Errorf("%s is disabled: enable it first (escouade-plugin enable %s)", harness.ACPPluginID, harness.ACPPluginID)
		}
		msg = "restarted: it runs no program of its own; each agent starts again with its next run"
	case "enable":
		on, msg = true, "enabled: the described harnesses run again, and their agents are back with their conversations"
	case "disable":
		on, msg = false, "disabled: no described harness runs; their agents stay, marked "+harness.Absent+", with their conversations"
	}
	if op != "restart" {
		if err := harness.SetACPEnabled(home, on); err != nil {
			return err
		}
	}
	if asJSON {
		return writeJSON(e.stdout, map[string]any{"id": harness.ACPPluginID, "disabled": !on, "message": msg})
	}
	fmt.Fprintf(e.stdout, "%s %s\n", harness.ACPPluginID, msg)
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
