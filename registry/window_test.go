package registry

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/manifest"
)

// TestInstallWindowEscapesControls: the install window printed a
// manifest's ANSI escapes, NUL and line breaks as they were, so a manifest
// could clear the screen or fake a line of the window. manifest.Load now
// refuses such a manifest (tests/hardening TestInstallRefusesUnsafeTexts);
// the window still escapes what it prints, for a Manifest built by other
// means.
func TestInstallWindowEscapesControls(t *testing.T) {
	m := &manifest.Manifest{
		ID:          "dev.example.evil",
		Name:        manifest.PlainText("Evil\x1b[2J\x1b[H\nIt runs isolated inside Escouade"),
		Version:     "1.0.0",
		Run:         &manifest.Run{Command: []string{"./run\x1b]0;title\a", "--x\x00"}},
		Permissions: manifest.Permissions{Programs: []string{"git\r\u202e"}},
		Contributes: manifest.Contributes{Harnesses: []manifest.Harness{{
			Locate: manifest.Locate{Names: []string{"agent\x1b[8m"}},
			ACP:    &manifest.ACP{Args: []string{"acp\u2028"}},
		}}},
	}
	var out bytes.Buffer
	w := WindowOf(m, "en")
	w.Print(&out)
	text := out.String()
	for _, bad := range []string{"\x1b", "\x00", "\a", "\r", "\u202e", "\u2028"} {
		if strings.Contains(text, bad) {
			t.Errorf("install text holds %q:\n%s", bad, text)
		}
	}
	// Six lines: install, runs, programs, what a program grant gives,
	// the environment a program gets, agents.
	if got := strings.Count(text, "\n"); got != 6 {
		t.Errorf("install text has %d lines, want 6 (a name faked a line):\n%s", got, text)
	}
	for _, want := range []string{`Install Evil\x1b[2J\x1b[H\nIt runs isolated`, `./run\x1b]0;title\a --x\x00`, `git\r\u202e`, `agent\x1b[8m acp\u2028`} {
		if !strings.Contains(text, want) {
			t.Errorf("install text lacks %q:\n%s", want, text)
		}
	}
	b, _ := json.Marshal(w)
	if strings.Contains(string(b), `\u001b`) {
		t.Errorf("install JSON holds a raw escape: %s", b)
	}
}

// TestInstallWindowProgramGrant: a module that asks for a program is not
// shown as isolated without a word: the window says the program runs
// outside, with the user's rights, and that some run any other; a
// netMaxBytes past what net/fetch carries is told with its numbers.
func TestInstallWindowProgramGrant(t *testing.T) {
	m := &manifest.Manifest{ID: "dev.example.git", Name: manifest.PlainText("Git"), Version: "1.0.0",
		Run:         &manifest.Run{WASM: "plugin.wasm"},
		Permissions: manifest.Permissions{Programs: []string{"git"}},
		Limits:      manifest.Limits{NetMaxBytes: 64 << 20}}
	var out bytes.Buffer
	WindowOf(m, "en").Print(&out)
	for _, want := range []string{
		"It runs isolated inside Escouade (WebAssembly): it reaches only what it asks below; the programs it asks for run outside.",
		"It asks for programs: git\n" + ProgramGrantSentence + "\n",
		"Its limits.netMaxBytes of 67108864 bytes holds for net/stream; a net/fetch answer carries at most 4194304 bytes (4 MiB) of body.",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("install text lacks %q:\n%s", want, out.String())
		}
	}
}

// A module that asks nothing says so, instead of pointing to an empty list.
func TestInstallWindowOfAModuleAskingNothing(t *testing.T) {
	var b strings.Builder
	WindowOf(&manifest.Manifest{ID: "dev.x", Version: "1.0.0", Run: &manifest.Run{JS: "dist/plugin.mjs"}}, "en").Print(&b)
	if out := b.String(); strings.Contains(out, "asks below") || !strings.Contains(out, "asks for nothing") {
		t.Errorf("window:\n%s", out)
	}
	b.Reset()
	WindowOf(&manifest.Manifest{ID: "dev.x", Version: "1.0.0", Run: &manifest.Run{JS: "dist/plugin.mjs"},
		Permissions: manifest.Permissions{Network: []string{"api.github.com"}}}, "en").Print(&b)
	if out := b.String(); !strings.Contains(out, "asks below") || !strings.Contains(out, "It asks for network hosts: api.github.com") {
		t.Errorf("window:\n%s", out)
	}
}
