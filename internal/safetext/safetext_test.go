package safetext

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Slack", "Slack"},
		{"clé € 日本 👨‍👩‍👧", "clé € 日本 👨‍👩‍👧"},
		{"red \x1b[31mtext\x1b[0m", `red \x1b[31mtext\x1b[0m`},
		{"a\x00b", `a\x00b`},
		{"line\nbreak\r\n", `line\nbreak\r\n`},
		{"tab\there", `tab\there`},
		{"del\x7f", `del\x7f`},
		{"c1 \u009b31m", `c1 \x9b31m`},
		{"evil\u202egnp.exe", `evil\u202egnp.exe`},
		{"iso\u2066late\u2069", `iso\u2066late\u2069`},
		{"sep\u2028", `sep\u2028`},
		{"zero\u200bwidth\ufeff", `zero\u200bwidth\ufeff`},
		{"hid\U000e0041\U000e0042den", `hid\U000e0041\U000e0042den`},
		{"annot\ufff9hidden\ufffbation", `annot\ufff9hidden\ufffbation`},
		{"نامه\u200cها", "نامه\u200cها"},
		{"bad \xff\xfe utf8", `bad \xff\xfe utf8`},
		{`already \x1b`, `already \x1b`},
	}
	for _, tt := range tests {
		if got := Line(tt.in); got != tt.want {
			t.Errorf("Line(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzLine(f *testing.F) {
	for _, s := range []string{"ok", "\x1b]0;title\a", "\u202e", "\xff", "\r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Line(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Line(%q) = %q, not UTF-8", s, got)
		}
		if strings.ContainsFunc(got, func(r rune) bool { return unicode.IsControl(r) || Unsafe(r) }) {
			t.Fatalf("Line(%q) = %q still holds an unsafe character", s, got)
		}
		if !needsEscape(s) && got != s {
			t.Fatalf("Line(%q) = %q changed a safe text", s, got)
		}
	})
}

func TestKeepTabs(t *testing.T) {
	if got, want := KeepTabs("\tat main.go:3\x1b[0m\r"), "\tat main.go:3\\x1b[0m\\r"; got != want {
		t.Errorf("KeepTabs = %q, want %q", got, want)
	}
}

func TestKind(t *testing.T) {
	tests := []struct {
		r    rune
		want string
	}{
		{'a', ""},
		{'é', ""},
		{'\u200d', ""}, // zero-width joiner: emoji sequences need it
		{'\u200c', ""}, // zero-width non-joiner: Persian needs it
		{'\x1b', "a control character"},
		{'\n', "a control character"},
		{'\x7f', "a control character"},
		{'\u009b', "a control character"},
		{'\u2028', "a line separator"},
		{'\u202e', "a bidirectional control"},
		{'\u061c', "a bidirectional control"},
		{'\u2067', "a bidirectional control"},
		{'\u200b', "an invisible format character"},
		{'\U000e0041', "an invisible format character"},
	}
	for _, tt := range tests {
		if got := Kind(tt.r); got != tt.want {
			t.Errorf("Kind(%s) = %q, want %q", Code(tt.r), got, tt.want)
		}
		if Unsafe(tt.r) != (tt.want != "") {
			t.Errorf("Unsafe(%s) disagrees with Kind", Code(tt.r))
		}
	}
	if got := Code('\x1b'); got != "U+001B" {
		t.Errorf("Code = %q, want U+001B", got)
	}
}

func TestTextKeepsLineBreaksAndTabsOnly(t *testing.T) {
	got := Text("one\r\n\ttwo\x1b[2K\nthree\u202e")
	if want := "one\\r\n\ttwo\\x1b[2K\nthree\\u202e"; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
	if got := Text("plain\ttext"); got != "plain\ttext" {
		t.Errorf("a safe text changed: %q", got)
	}
}
