package journal

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestMask(t *testing.T) {
	tests := []struct {
		name    string
		secrets []string
		text    string
		want    string
	}{
		{"plain", []string{"s3cr3t"}, "token=s3cr3t&x=s3cr3t", "token=••••&x=••••"},
		{"no secret", nil, "token=s3cr3t", "token=s3cr3t"},
		{"empty secret ignored", []string{""}, "a b", "a b"},
		{"quote escaped", []string{`a"b`}, `{"t":"a\"b"} a"b`, `{"t":"••••"} ••••`},
		{"backslash escaped", []string{`a\b`}, `{"t":"a\\b"} a\b`, `{"t":"••••"} ••••`},
		{"HTML escaped and not", []string{"<k&y>"}, `"\u003ck\u0026y\u003e" "<k&y>" <k&y>`, `"••••" "••••" ••••`},
		{"unicode as is", []string{"clé€"}, `{"k":"clé€"}`, `{"k":"••••"}`},
		{"line separator escaped", []string{"a\u2028b"}, `"a\u2028b"`, `"••••"`},
		{"newline escaped", []string{"l1\nl2"}, `{"k":"l1\nl2"}`, `{"k":"••••"}`},
		{"control escaped", []string{"a\x01b"}, `"a\u0001b"`, `"••••"`},
		{"tab escaped", []string{"a\tb"}, `"a\tb"`, `"••••"`},
		{"longest first", []string{"abc", "abcdef"}, "abcdef abc", "•••• ••••"},
		{"longest first, any order", []string{"abcdef", "abc"}, "abcdefabc", "••••••••"},
		{"overlap hides both", []string{"abc", "cde"}, "abcde", "••••de"},
		{"secret made of dots ignored", []string{"••"}, "••", "••"},
		{"mask meeting text", []string{"x•"}, "xx•", "•••••••"},
		{"not UTF-8 secret", []string{"k\xff"}, "k\xff!", "••••!"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m masker
			for _, s := range tt.secrets {
				m.add(s)
			}
			if diff := cmp.Diff(tt.want, m.apply(tt.text)); diff != "" {
				t.Errorf("apply(%q) (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

func TestMaskSplitsAfterMasking(t *testing.T) {
	j, _ := openTest(t, Options{}, hooks{})
	j.Mask("first\nsecond")
	j.Write(TagStderr, "got first\nsecond\nand more")
	want := []string{line("stderr", "got ••••"), line("stderr", "and more")}
	if diff := cmp.Diff(want, mustTail(t, j, 10)); diff != "" {
		t.Errorf("Tail (-want +got):\n%s", diff)
	}
}

func TestMaskAppliesFromNowOn(t *testing.T) {
	j, _ := openTest(t, Options{}, hooks{})
	j.Write(TagSecret, "asked for webhook")
	j.Write(TagStderr, "before tok-123")
	j.Mask("tok-123")
	j.Write(TagStderr, "after tok-123")
	j.Write(TagLate, `{"token":"tok-123"}`)
	want := []string{
		line("secret", "asked for webhook"),
		line("stderr", "before tok-123"),
		line("stderr", "after ••••"),
		line("late", `{"token":"••••"}`),
	}
	if diff := cmp.Diff(want, mustTail(t, j, 10)); diff != "" {
		t.Errorf("Tail (-want +got):\n%s", diff)
	}
}

func FuzzMask(f *testing.F) {
	f.Add("s3cr3t", "", "token=", "&more")
	f.Add(`a"b\c<d>&e`, "b", `{"k":"`, `"}`)
	f.Add("clé\u2028€", "é", "", "\n")
	f.Add("x•", "•x", "x", "•")
	f.Add("\x00\x1f", "", "\xff", "")
	f.Fuzz(func(t *testing.T, secret, other, before, after string) {
		var m masker
		m.add(other) // another secret, overlapping or not, must not let this one through
		m.add(secret)
		forms := secretForms(validUTF8(secret))
		text := before + secret + after + strings.Join(forms, " ")
		got := m.apply(text)
		if !utf8.ValidString(got) {
			t.Fatalf("apply(%q) = %q, not UTF-8", text, got)
		}
		if secret == "" || onlyMaskRunes(validUTF8(secret)) {
			return // never masked: nothing to check
		}
		for _, form := range forms {
			if strings.Contains(got, form) {
				t.Fatalf("apply(%q) = %q, still holds %q", text, got, form)
			}
		}
	})
}
