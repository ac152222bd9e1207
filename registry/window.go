package registry

import (
	"fmt"
	"io"
	"strings"

	"github.com/escouade-dev/escouade-plugin/internal/safetext"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/process"
	"github.com/escouade-dev/escouade-plugin/protocol"
)

// Window is what the install window shows before the person says yes:
// what the plugin runs, whether it is isolated, each capability it asks
// for and the programs its agents run. Every text comes from the manifest,
// which anyone may have written: each is escaped here (control
// characters, line breaks, bidirectional controls shown as \x1b, \n,
// \u202e), so that nothing acts on a terminal, hides a word or fakes a
// line — whoever prints it.
type Window struct {
	ID        string               `json:"id"`
	Name      string               `json:"name"`
	Version   string               `json:"version"`
	Runs      string               `json:"runs"`
	Isolated  bool                 `json:"isolated"`
	Asks      manifest.Permissions `json:"asks"`
	Harnesses []string             `json:"harnesses,omitempty"`
	// Environment, for a program on the person's computer (run.command, or
	// the programs a module asks for), says which of their environment's
	// variables it gets: no key or token of the app's.
	Environment string `json:"environment,omitempty"`
	// FetchNote says what limits.netMaxBytes gives when it is past what a
	// net/fetch answer carries.
	FetchNote string `json:"fetchNote,omitempty"`
}

// ProgramGrantSentence says what a program grant gives: a program runs
// outside the isolation, and many run any other one (git -c alias.x=!cmd,
// sh -c, python -c, node -e, make).
const ProgramGrantSentence = "Each program it asks for runs outside the isolation, on your computer, with your rights; some, such as git, sh, python, node or make, run any other program they are told to."

// Window is the offer's install window, its name in lang.
func (o *Offer) Window(lang string) Window { return WindowOf(o.Manifest, lang) }

// WindowOf is the install window of m, its name in lang.
func WindowOf(m *manifest.Manifest, lang string) Window {
	w := Window{ID: safetext.Line(m.ID), Name: safetext.Line(m.Name.In(lang)), Version: safetext.Line(m.Version)}
	w.Asks = manifest.Permissions{
		Secrets:  safetext.Lines(m.Permissions.Secrets),
		Network:  safetext.Lines(m.Permissions.Network),
		Files:    safetext.Lines(m.Permissions.Files),
		Programs: safetext.Lines(m.Permissions.Programs),
	}
	w.FetchNote = fetchNote(m.Limits)
	w.Runs, w.Isolated = runsSentence(m)
	w.Harnesses = HarnessCommands(m)
	if m.Run.Kind() == manifest.RunProcess || len(m.Permissions.Programs) > 0 {
		w.Environment = process.EnvironmentSentence(lang)
	}
	return w
}

// runsSentence is what the window says m runs, and whether it is isolated.
func runsSentence(m *manifest.Manifest) (string, bool) {
	switch m.Run.Kind() {
	case manifest.RunNone:
		return "runs no program of its own: it only describes what it adds", false
	case manifest.RunProcess:
		return "runs a program on your computer, with your rights: " + strings.Join(safetext.Lines(m.Run.Command), " "), false
	}
	runs := "runs isolated inside Escouade (WebAssembly): it reaches only what it asks below"
	if asksNothing(m.Permissions) {
		runs = "runs isolated inside Escouade (WebAssembly) and asks for nothing: no secret, network host, folder or program"
	}
	if len(m.Permissions.Programs) > 0 {
		runs += "; the programs it asks for run outside"
	}
	return runs, true
}

// HarnessCommands are the command lines the agents of m's harnesses run,
// escaped; a harness that names no program runs nothing and is left out.
func HarnessCommands(m *manifest.Manifest) []string {
	var out []string
	for _, hs := range m.Contributes.Harnesses {
		var args []string
		if hs.ACP != nil {
			args = hs.ACP.Args
		}
		if len(hs.Locate.Names) == 0 && len(args) == 0 {
			continue
		}
		out = append(out, safetext.Line(strings.Join(append([]string{firstName(hs.Locate.Names)}, args...), " ")))
	}
	return out
}

// fetchNote is the line of the window about limits.netMaxBytes, "" when
// net/fetch can carry all of it.
func fetchNote(l manifest.Limits) string {
	if l.NetMaxBytes <= protocol.MaxFetchBytes {
		return ""
	}
	return fmt.Sprintf("Its limits.netMaxBytes of %d bytes holds for net/stream; a net/fetch answer carries at most %d bytes (%d MiB) of body.",
		min(l.NetMaxBytes, protocol.MaxNetMaxBytes), protocol.MaxFetchBytes, protocol.MaxFetchBytes>>20)
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

// Print writes the window as the CLI shows it, one line a fact.
func (w Window) Print(out io.Writer) {
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
		fmt.Fprintln(out, ProgramGrantSentence)
	}
	if w.Environment != "" {
		fmt.Fprintln(out, w.Environment)
	}
	if w.FetchNote != "" {
		fmt.Fprintln(out, w.FetchNote)
	}
	for _, h := range w.Harnesses {
		fmt.Fprintf(out, "Its agents run a program on your computer, with your rights: %s\n", h)
	}
}
