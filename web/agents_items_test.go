package web

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode"

	"github.com/escouade-dev/escouade-plugin/acp"
)

// hostileItem puts s in every text of a permission card the page shows.
func hostileItem(s string) acp.Item {
	return acp.Item{
		Type: acp.TypePermission, Request: s, Title: s, Name: s, Description: s, Locations: []string{s},
		Text: s, Error: s, Diffs: []acp.Diff{{Path: s, OldText: &s, NewText: s + "\n" + s}},
		Options:   []acp.PermissionOption{{ID: s, Name: s, Kind: s}},
		Questions: []acp.Question{{Question: s, Header: s, Options: []acp.QuestionOption{{Label: s}}}},
		Answers:   [][]string{{s}}, Entries: json.RawMessage(`[{"content":` + quoteJS(s) + `}]`),
		Input: json.RawMessage(`{"command":` + quoteJS(s) + `,` + quoteJS(s) + `:` + quoteJS(s) + `}`),
	}
}

// unsafeRune reports the first character of the view's texts that
// could reorder or hide what the page shows: a control character but a
// line break or a tab, or a bidirectional control.
func unsafeRune(v itemView) (rune, bool) {
	b, _ := json.Marshal(v)
	var texts []string
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case string:
			texts = append(texts, x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	var doc any
	json.Unmarshal(b, &doc)
	walk(doc)
	for _, t := range texts {
		for _, r := range t {
			if r == '\n' || r == '\t' {
				continue
			}
			if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == '\u2028' || r == '\u2029' {
				return r, true
			}
		}
	}
	return 0, false
}

// What the page shows of an agent is escaped as the journal is: control
// and bidirectional characters written out, line breaks kept.
func TestItemViewEscapesTheAgentsTexts(t *testing.T) {
	v := viewOf(hostileItem("a\x1b[31mred\u202eevil\nnext\rline"))
	if r, bad := unsafeRune(v); bad {
		t.Errorf("the view shows %U as it is", r)
	}
	if want := `a\x1b[31mred\u202eevil` + "\n" + `next\rline`; v.Text != want {
		t.Errorf("text %q, want %q", v.Text, want)
	}
	if got := strings.Join(v.Diffs[0].Lines, "|"); !strings.Contains(got, `+a\x1b[31mred\u202eevil`) {
		t.Errorf("diff lines %q", got)
	}
	if len(v.Entries) != 1 || v.Entries[0].Content != v.Text {
		t.Errorf("plan entries %+v", v.Entries)
	}
}

func FuzzItemViewEscapes(f *testing.F) {
	for _, s := range []string{"plain", "\u202e", "a\x00b", "\xff\xfe", "line\nbreak", "tab\there", "\u2066x\u2069"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if r, bad := unsafeRune(viewOf(hostileItem(s))); bad {
			t.Errorf("%q: the view shows %U as it is", s, r)
		}
	})
}

// A page's first read joins each message's chunks and carries the end of
// a long conversation only, saying how much it left out.
func TestResetViewsJoinsChunksAndKeepsTheEnd(t *testing.T) {
	var history []acp.Item
	for i := range 3 * resetItems {
		history = append(history, acp.Item{Type: acp.TypeText, MessageID: "m1", Text: "a"})
		if i%2 == 1 {
			history = append(history, acp.Item{Type: acp.TypeNotice, Text: "tick"})
		}
	}
	views := resetViews(history, 0)
	if len(views) != resetItems+1 || views[0].Type != acp.TypeNotice || !strings.Contains(views[0].Text, "earlier items are not shown") {
		t.Fatalf("%d views, first %+v", len(views), views[0])
	}
	if last := views[len(views)-2]; last.Type != acp.TypeText || last.Text != "aa" {
		t.Errorf("the chunks of a message between two notices: %+v", last)
	}
	joined := resetViews([]acp.Item{{Type: acp.TypeText, MessageID: "m1", Text: "Hel"}, {Type: acp.TypeText, MessageID: "m1", Text: "lo"}, {Type: acp.TypeText, MessageID: "m2", Text: "!"}}, 0)
	if len(joined) != 2 || joined[0].Text != "Hello" {
		t.Errorf("joined: %+v", joined)
	}
}

// A message longer than the bound is shown from where it fits, its end
// kept.
func TestResetViewsBoundsTheBytes(t *testing.T) {
	big := strings.Repeat("é", resetBytes) + "the end"
	views := resetViews([]acp.Item{{Type: acp.TypeNotice, Text: "first"}, {Type: acp.TypeText, MessageID: "m", Text: big}}, 0)
	if len(views) != 2 || !strings.Contains(views[0].Text, "1 earlier items") {
		t.Fatalf("%d views, first %.80q", len(views), views[0].Text)
	}
	if text := views[1].Text; len(text) > resetBytes+len("…") || !strings.HasSuffix(text, "the end") || !strings.HasPrefix(text, "…é") {
		t.Errorf("the long message: %d bytes, %.20q…%.20q", len(text), text, text[len(text)-20:])
	}
}

// A permission card carries the tool's input: the field a person decides
// on first, then the whole input, escaped, whatever the tool's kind.
func TestItemViewCarriesTheCardsInput(t *testing.T) {
	card := acp.Item{Type: acp.TypePermission, Name: "Bash", Input: json.RawMessage(`{"description":"clean","command":"rm -rf ~/important\u202e"}`)}
	in := viewOf(card).Input
	if in == nil || in.Field != "command" || in.Lead != `rm -rf ~/important\u202e` || in.Cut != 0 {
		t.Fatalf("input %+v", in)
	}
	if !strings.Contains(in.JSON, "\n  \"command\": \"rm -rf ~/important") || !strings.Contains(in.JSON, `"description": "clean"`) {
		t.Errorf("the whole input: %q", in.JSON)
	}
	for raw, want := range map[string]string{
		`{"url":"https://example.com/x","method":"GET"}`: "https://example.com/x",
		`{"file_path":"/etc/passwd"}`:                    "/etc/passwd",
		`{"args":["-la","/"]}`:                           `["-la","/"]`,
		`{"constructor":"x","__proto__":"y"}`:            "",
	} {
		got := viewOf(acp.Item{Type: acp.TypePermission, Input: json.RawMessage(raw)}).Input
		if got == nil || got.Lead != want {
			t.Errorf("%s: lead %+v, want %q", raw, got, want)
		}
	}
	if v := viewOf(acp.Item{Type: acp.TypePermission}); v.Input != nil {
		t.Errorf("a card without input shows %+v", v.Input)
	}
	if v := viewOf(acp.Item{Type: acp.TypePermission, Input: json.RawMessage(`"just text"`)}); v.Input == nil || v.Input.JSON != `"just text"` {
		t.Errorf("an input that is no object: %+v", v.Input)
	}
}

// An input larger than the bound is cut, and says its whole size.
func TestItemViewBoundsTheCardsInput(t *testing.T) {
	command := strings.Repeat("é", inputBytes) // two bytes each
	raw, _ := json.Marshal(map[string]string{"command": command})
	in := viewOf(acp.Item{Type: acp.TypePermission, Input: raw}).Input
	if in.Cut <= len(raw) || len(in.JSON) > inputBytes+len("…") || !strings.HasSuffix(in.JSON, "é…") {
		t.Errorf("cut %d of %d bytes, JSON %d bytes ending %q", in.Cut, len(raw), len(in.JSON), in.JSON[len(in.JSON)-8:])
	}
	if len(in.Lead) > inputBytes+len("…") || !strings.HasSuffix(in.Lead, "é…") || !strings.HasPrefix(in.Lead, "éé") {
		t.Errorf("the lead is %d bytes", len(in.Lead))
	}
}
