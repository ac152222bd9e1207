package term

import (
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/acp"
	"github.com/google/go-cmp/cmp"
)

func render(r *Renderer, items ...acp.Item) string {
	var b strings.Builder
	for _, it := range items {
		b.WriteString(r.Render(it))
	}
	return b.String()
}

func ptr[T any](v T) *T { return &v }

func TestRender(t *testing.T) {
	allow := []acp.PermissionOption{{ID: "y", Name: "Yes", Kind: "allow_once"}, {ID: "n", Name: "No", Kind: "reject_once"}}
	tests := []struct {
		name  string
		color bool
		items []acp.Item
		want  string
	}{
		{"streamed text joins chunks", false, []acp.Item{
			{Type: acp.TypeUser, Text: "hi"},
			{Type: acp.TypeText, MessageID: "m1", Text: "Hel"}, {Type: acp.TypeText, MessageID: "m1", Text: "lo"},
			{Type: acp.TypeText, MessageID: "m2", Text: "Again"},
			{Type: acp.TypeTurn, StopReason: "end_turn", Usage: &acp.Usage{InputTokens: 3, OutputTokens: 4}},
		}, "\n> hi\nHello\nAgain\n— end of turn (end_turn), 3 tokens in, 4 out\n"},
		{"tool lines", false, []acp.Item{
			{Type: acp.TypeTool, ID: "t", Name: "Bash", Title: "ls", Status: "pending"},
			{Type: acp.TypeTool, ID: "c", Name: "Read", Parent: "t"},
			{Type: acp.TypeToolDone, ID: "t", Name: "Bash", Title: "ls", Status: "failed", Error: "boom"},
		}, "⏺ Bash · ls [pending]\n⏺   Read\n⏺ Bash · ls [failed: boom]\n"},
		{"permission card with a coloured diff", true, []acp.Item{
			{Type: acp.TypePermission, Request: "r1", Name: "Edit", Title: "a.txt", Options: allow,
				Diffs: []acp.Diff{{Path: "/p/a.txt", OldText: ptr("one\ntwo\n"), NewText: "one\nTWO\n"}}},
		}, "\x1b[1m? Edit wants to run: a.txt\x1b[0m\n  \x1b[1m/p/a.txt\x1b[0m\n   one\n  \x1b[31m-two\x1b[0m\n  \x1b[32m+TWO\x1b[0m\n  [1] Allow once (Yes)\n  [2] Reject (No)\n"},
		{"question card and its answer", false, []acp.Item{
			{Type: acp.TypeQuestion, Request: "q", Questions: []acp.Question{{Question: "Color?", Options: []acp.QuestionOption{{Label: "red"}, {Label: "blue"}}}}},
			{Type: acp.TypeAnswered, Request: "q", Outcome: "selected", Answers: [][]string{{"blue"}}},
		}, "? 1. Color?\n  [1] red\n  [2] blue\n  → blue\n"},
		{"notice, cancelled card, closed", false, []acp.Item{
			{Type: acp.TypeNotice, Text: "careful"},
			{Type: acp.TypeAnswered, Request: "r1", Outcome: acp.OutcomeCancelled},
			{Type: acp.TypeClosed},
		}, "! careful\n  → cancelled\nsession closed\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := render(&Renderer{Color: tt.color}, tt.items...)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("text (-want +got):\n%s", d)
			}
		})
	}
}

func TestWaitingCards(t *testing.T) {
	r := &Renderer{}
	card := acp.Item{Type: acp.TypePermission, Request: "r1", Options: []acp.PermissionOption{{ID: "y", Kind: "allow_once"}, {ID: "x"}}}
	r.Render(card)
	got, ok := r.Waiting()
	if !ok || got.Request != "r1" {
		t.Fatalf("waiting %v %v", got, ok)
	}
	for key, want := range map[string]string{"1": "allow_once", " 2 ": "x"} {
		if kind, err := PermissionKey(got, key); err != nil || kind != want {
			t.Errorf("key %q: %q %v, want %q", key, kind, err, want)
		}
	}
	for _, bad := range []string{"0", "3", "a", ""} {
		if _, err := PermissionKey(got, bad); err == nil {
			t.Errorf("key %q accepted", bad)
		}
	}
	r.Render(acp.Item{Type: acp.TypeAnswered, Request: "r1"})
	if _, ok := r.Waiting(); ok {
		t.Error("answered card still waiting")
	}
}

func TestParseAnswer(t *testing.T) {
	card := acp.Item{Questions: []acp.Question{
		{Question: "One?", Options: []acp.QuestionOption{{Label: "a"}, {Label: "b"}}},
		{Question: "Many?", MultiSelect: true, Options: []acp.QuestionOption{{Label: "x"}, {Label: "y"}}},
	}}
	tests := []struct {
		input string
		want  [][]string
	}{
		{"2; 1,2", [][]string{{"b"}, {"x", "y"}}},
		{"1,2; my own", [][]string{{"1,2"}, {"my own"}}},
		{"9; 2", [][]string{{"9"}, {"y"}}},
	}
	for _, tt := range tests {
		got, err := ParseAnswer(card, tt.input)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%q (-want +got):\n%s", tt.input, d)
		}
	}
	if _, err := ParseAnswer(card, "only one"); err == nil {
		t.Error("one answer for two questions accepted")
	}
}
