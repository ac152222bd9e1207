package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/escouade-dev/escouade-plugin/harness"
	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/internal/safetext"
	"github.com/escouade-dev/escouade-plugin/journal"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/modules"
	"github.com/escouade-dev/escouade-plugin/registry"
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
	var dev bool
	home, asJSON, pos, err := homeFlags("install", args, func(fs *flag.FlagSet) {
		fs.BoolVar(&dev, "dev", false, "a development install: its rebuilds and edits restart it without a review while its run and permissions stay as shown")
		fs.StringVar(&lang, "lang", "en", "language of the texts")
		fs.StringVar(&proxy, "proxy", "", "the proxy a clone over https goes through (default: Settings › Network's)")
	})
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one plugin folder or git repository: escouade-plugin install DIR|URL (escouade-plugin help install)")
	}
	if registry.IsGitSource(pos[0]) {
		if proxy, err = appProxy(home, proxy); err != nil {
			return err
		}
	}
	if m, err := manifest.Load(pos[0], manifest.LoadOptions{AppVersion: host.AppVersion}); err == nil && !registry.IsGitSource(pos[0]) {
		warnStale(e.stderr, "install", m) // before the compile, which may refuse the old build
	}
	offer, err := registry.Prepare(context.Background(), home, pos[0], registry.InstallOptions{
		AppVersion: host.AppVersion,
		Compile:    modules.Compiler(home, ""),
		Progress:   progressTo(e.stderr, asJSON),
		Proxy:      proxy,
	})
	if err != nil {
		return err
	}
	if offer.Source != "" {
		fmt.Fprintf(e.stderr, "escouade-plugin install: cloned %s into %s\n", safetext.Line(offer.Source), offer.Manifest.Dir)
	}
	warnNoActivation(e.stderr, offer.Manifest)
	// The CLI stands for the app's window and its yes: what it prints is
	// what is recorded, every capability asked granted (an update keeps
	// what was taken back).
	accept := offer.Accept
	if dev {
		accept = offer.AcceptDev
	}
	if _, err := accept(offer.Granted()); err != nil {
		offer.Discard()
		return err
	}
	w := offer.Window(lang)
	if asJSON {
		return writeJSON(e.stdout, struct {
			registry.Window
			Dev bool `json:"dev,omitempty"`
		}{w, dev})
	}
	w.Print(e.stdout)
	if dev {
		fmt.Fprintln(e.stdout, devInstalled)
	}
	fmt.Fprintln(e.stdout, "Installed.")
	return nil
}

// devInstalled is what install --dev adds to the window it prints.
const devInstalled = "In development: its rebuilds and edits restart it without a review while its run, permissions, limits and harnesses stay as shown above; a change of them asks for a review again."

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
			if en.Dev != nil {
				state += ", in development"
			}
			if errors.As(consented(home, en.Entry), &changed) {
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
			if err := consented(home, en); err != nil {
				why := strings.TrimPrefix(err.Error(), "not started: ")
				return fmt.Errorf("%s not %s: %s", en.ID, map[string]string{"restart": "restarted", "enable": "enabled"}[op], why)
			}
		}
		if op != "restart" {
			en, err = registry.Change(home, en.ID, func(e *registry.Entry) error {
				e.Disabled = op == "disable"
				return nil
			})
			if err != nil {
				return err
			}
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
func consented(home string, en registry.Entry) error {
	m, err := manifest.Load(en.Dir, manifest.LoadOptions{AppVersion: host.AppVersion})
	if err != nil {
		return err
	}
	return registry.CheckEntry(home, en, m)
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
