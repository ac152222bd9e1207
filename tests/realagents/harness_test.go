//go:build linux && amd64

package realagents

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/manifest"
)

// The texts the scripted models and the assertions share.
const (
	notesText   = "the notes say 7f3a\n"
	helloText   = "hello from the model\n"
	ranMarker   = "ran-9b2e"
	editedText  = "the notes say 8d4c\n"
	waitingText = "Thinking it over"
)

// step sends a prompt and plays its turn to the end, allowing every
// permission card once; it gives the turn's items and the cards.
func (c *console) step(prompt string) (items, cards []item) {
	c.t.Helper()
	c.send(map[string]any{"op": "prompt", "text": prompt})
	for {
		got := c.until("the end of the turn "+prompt, func(it item) bool { return it.Type == "turn" || it.Type == "permission" })
		items = append(items, got...)
		last := got[len(got)-1]
		if last.Type == "turn" {
			return items, cards
		}
		cards = append(cards, last)
		c.send(map[string]any{"op": "answer", "request": last.Request, "kind": "allow_once"})
	}
}

// TestRealAgentsThroughHarness plays one conversation with each real
// agent through `escouade-plugin harness`: read a file, write one behind a
// card that carries its diff, edit one, change the mode, run a command,
// cancel a turn, and end turns with their token counts.
func TestRealAgentsThroughHarness(t *testing.T) {
	if testing.Short() {
		t.Skip("installs and runs three real agents for about two minutes")
	}
	for _, name := range []string{"claude", "codex", "goose"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			playConversation(t, agents[name])
		})
	}
}

func playConversation(t *testing.T, a realAgent) {
	cwd := t.TempDir()
	mustWrite(t, filepath.Join(cwd, "notes.txt"), notesText)
	srv := a.server(t, a.moves(cwd))
	c := a.start(t, srv, cwd, "default")
	opening := c.untilType("session")
	checkStart(t, a, opening)
	defer checkOffered(t, a, srv)

	items, _ := c.step("STEP-READ notes.txt")
	if !srv.saw("7f3a") {
		t.Errorf("%s did not send the model the file it read; items:\n%s\nrequests:\n%s", a.name, lines(items), srv.seen())
	}
	checkTool(t, items, a.readTool)
	checkTokens(t, a, items)

	items, cards := c.step("STEP-WRITE hello.txt")
	checkFile(t, filepath.Join(cwd, "hello.txt"), helloText, items)
	checkCard(t, a, cards, "hello.txt", nil, a.writeName)
	checkNoUnknown(t, a, items)

	items, cards = c.step("STEP-EDIT notes.txt")
	checkFile(t, filepath.Join(cwd, "notes.txt"), editedText, items)
	old := notesText
	checkCard(t, a, cards, "notes.txt", &old, "Edit")

	c.send(map[string]any{"op": "mode", "mode": "acceptEdits"})
	got := c.until("the mode acceptEdits", func(it item) bool { return it.Type == "mode" && it.AppMode == "acceptEdits" })
	if m := got[len(got)-1]; m.Mode != a.acceptEdits {
		t.Errorf("%s's mode after acceptEdits: %q, want its own %q", a.name, m.Mode, a.acceptEdits)
	}

	items, _ = c.step("STEP-RUN")
	checkFile(t, filepath.Join(cwd, "ran.txt"), ranMarker+"\n", items)
	checkTool(t, items, "Bash")
	checkTokens(t, a, items)

	c.send(map[string]any{"op": "prompt", "text": "STEP-WAIT"})
	c.until("the text before the wait", func(it item) bool { return it.Type == "text" && strings.Contains(it.Text, "Thinking") })
	c.send(map[string]any{"op": "cancel"})
	items = c.untilType("turn")
	if stop := items[len(items)-1].StopReason; stop != "cancelled" {
		t.Errorf("%s's cancelled turn ended %q; items:\n%s", a.name, stop, lines(items))
	}

	c.send(map[string]any{"op": "close"})
	c.untilType("closed")
	logShapes(t, a, c)
}

// checkStart: the session opened, and no notice at the start says the
// version could not be read.
func checkStart(t *testing.T, a realAgent, items []item) {
	t.Helper()
	for _, n := range ofType(items, "notice") {
		if strings.Contains(n.Text, "cannot read the version") {
			t.Errorf("%s: %s", a.name, n.Text)
		}
		if strings.Contains(n.Text, "has not been tried") {
			t.Errorf("%s's plugin does not list the version the tests run: %s", a.name, n.Text)
		}
	}
}

// checkOffered: the model was offered the tools the agent must have.
func checkOffered(t *testing.T, a realAgent, srv *modelServer) {
	t.Helper()
	for _, name := range a.needTools {
		if !slices.Contains(srv.offeredTools(), name) {
			t.Errorf("%s offered the model no tool %s; it offered %v", a.name, name, srv.offeredTools())
		}
	}
}

// checkTool: a tool call of that app name ran to completed in the turn.
func checkTool(t *testing.T, items []item, name string) {
	t.Helper()
	for _, it := range ofType(items, "toolDone") {
		if it.Name == name && it.Status == "completed" {
			return
		}
	}
	t.Errorf("no %s tool completed in the turn:\n%s", name, lines(items))
}

// checkTokens: the turn's end carries its token counts.
func checkTokens(t *testing.T, a realAgent, items []item) {
	t.Helper()
	turn := items[len(items)-1]
	if total, _ := turn.Usage["totalTokens"].(float64); total > 0 {
		return
	}
	t.Errorf("%s's turn has no token counts: %s", a.name, turn.line)
}

func checkFile(t *testing.T, path, want string, items []item) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil || string(got) != want {
		t.Errorf("%s holds %q (%v), want %q; items:\n%s", filepath.Base(path), got, err, want, lines(items))
	}
}

// checkCard: one card asked about the file, carrying its diff, under the
// app's tool name.
func checkCard(t *testing.T, a realAgent, cards []item, file string, oldText *string, name string) {
	t.Helper()
	var card *item
	for i := range cards {
		if strings.Contains(cards[i].line, file) {
			card = &cards[i]
		}
	}
	if card == nil {
		t.Errorf("%s asked no card about %s; cards:\n%s", a.name, file, lines(cards))
		return
	}
	noDiff := len(card.Diffs) == 0 || filepath.Base(card.Diffs[0].Path) != file || (oldText == nil) != (card.Diffs[0].OldText == nil)
	if noDiff {
		t.Errorf("%s's card about %s has no diff of it: %s", a.name, file, card.line)
	}
	if card.Name != name {
		t.Errorf("%s's card about %s is named %q, want %q: %s", a.name, file, card.Name, name, card.line)
	}
}

// checkNoUnknown: every update of the agent was understood.
func checkNoUnknown(t *testing.T, a realAgent, items []item) {
	t.Helper()
	if unknown := ofType(items, "unknown"); len(unknown) > 0 {
		t.Errorf("%s sent %d updates the host did not understand:\n%s", a.name, len(unknown), lines(unknown))
	}
}

// logShapes writes the tool items of the conversation to the test's
// log, the shapes each agent's edits, writes and commands take.
func logShapes(t *testing.T, a realAgent, c *console) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	for _, it := range c.all {
		if it.Type == "tool" || it.Type == "toolDone" || it.Type == "permission" {
			b.WriteString(truncate(it.line, 2000) + "\n")
		}
	}
	t.Logf("%s's tool items:\n%s", a.name, b.String())
}

// The bundled Goose plugin gives Goose its developer tools, and its
// tested range is the version these tests run (docs/RATIONALE.md#why-is-goose-given-its-developer-tools).
func TestGoosePluginAsTested(t *testing.T) {
	m, err := manifest.Load("../../plugins/goose", manifest.LoadOptions{AppVersion: host.AppVersion})
	if err != nil {
		t.Fatal(err)
	}
	h := m.Contributes.Harnesses[0]
	if want := []string{"acp", "--with-builtin", "developer"}; !slices.Equal(h.ACP.Args, want) {
		t.Errorf("plugins/goose runs goose %v, want %v", h.ACP.Args, want)
	}
	if h.Tested.Oldest != goosePkg.version || h.Tested.Newest != goosePkg.version {
		t.Errorf("plugins/goose says it was tried with %s to %s; the tests run Goose %s", h.Tested.Oldest, h.Tested.Newest, goosePkg.version)
	}
}
