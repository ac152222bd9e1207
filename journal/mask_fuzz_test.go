package journal

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func hexEscape(format string, r rune) string {
	return fmt.Sprintf(`\u`+format, r)
}

// maskAsWrite masks text as Write does, line by line, without the cap.
func maskAsWrite(m *masker, text string) []string {
	lines := splitLines(m.apply(text))
	for i, l := range lines {
		lines[i] = m.applyLine(l)
	}
	return lines
}

// FuzzMask: a secret of any bytes, escaped any JSON way, between any
// texts, cut anywhere into two writes (as a long stderr line is), is never
// in clear: not in a line, not where the two pieces meet, not in any
// decoded view of them. Only a piece shorter than the edge bound may stay
// at a cut, and of a multi-line secret only lines shorter than
// minPartBytes.
func FuzzMask(f *testing.F) {
	f.Add("s3cr3t", "", "token=", "&more", []byte{0}, 8)
	f.Add(`a"b\c<d>&e`, "b", `{"k":"`, `"}`, []byte{1, 2, 3}, 9)
	f.Add("clé\u2028€", "é", "", "\n", []byte{1}, 3)
	f.Add("x•", "•x", "x", "•", []byte{0}, 1)
	f.Add("\x00\x1f", "", "\xff", "", []byte{3}, 2)
	f.Add("k😀y/z", "", `"`, `"`, []byte{2, 1, 0}, 7)
	f.Add(testPEM, "", "", "", []byte{0}, 100)
	f.Fuzz(func(t *testing.T, secret, other, before, after string, choices []byte, cut int) {
		var m masker
		m.add(other) // another secret, overlapping or not, must not let this one through
		m.add(secret)
		s := validUTF8(secret)
		encoded := escapeAnyWay(s, choices)
		text := validUTF8(before) + encoded + validUTF8(after)
		if cut < 0 {
			cut = -cut
		}
		cut %= len(text) + 1
		for cut > 0 && cut < len(text) && !utf8.RuneStart(text[cut]) {
			cut-- // the chunks of stderr are cut before a rune
		}
		one := maskAsWrite(&m, text)
		two := append(maskAsWrite(&m, text[:cut]), maskAsWrite(&m, text[cut:])...)
		for _, l := range append(one, two...) {
			if !utf8.ValidString(l) {
				t.Fatalf("masked line %q is not UTF-8", l)
			}
		}
		if s == "" || onlyMaskRunes(s) {
			return // never masked: nothing to check
		}
		if strings.Contains(s, "•") {
			// Where a piece kept at a cut meets a mask, such a secret
			// appears made of the mask itself: check lines alone.
			for _, l := range append(one, two...) {
				if strings.Contains(l, s) {
					t.Fatalf("secret %q, text %q cut at %d: line %q shows it", s, text, cut, l)
				}
			}
			return
		}
		if strings.ContainsAny(s, "\r\n") {
			checkLines(t, s, one)
			checkLines(t, s, two)
			return
		}
		if joined := strings.Join(one, "\n"); anyContains(decodeAll(joined), s) {
			t.Fatalf("secret %q, text %q: %q shows it", s, text, joined)
		}
		// Pieces at a cut are looked for through one level of escapes.
		if joined := strings.Join(two, ""); anyContains(decodeOnce(joined), s) {
			t.Fatalf("secret %q, text %q cut at %d: %q shows it", s, text, cut, joined)
		}
	})
}

// checkLines checks that no line of a multi-line secret long enough to be
// hidden on its own shows in a line.
func checkLines(t *testing.T, secret string, lines []string) {
	t.Helper()
	for _, part := range strings.FieldsFunc(secret, func(r rune) bool { return r == '\n' || r == '\r' }) {
		part = strings.TrimSpace(part)
		if len(part) < minPartBytes || onlyMaskRunes(part) {
			continue
		}
		for _, l := range lines {
			if anyContains(decodeAll(l), part) {
				t.Fatalf("line %q shows %q of the secret %q", l, part, secret)
			}
		}
	}
}

func decodeOnce(text string) []string {
	v, _ := identityView(text).decoded()
	return []string{text, v.text}
}

func anyContains(texts []string, s string) bool {
	for _, text := range texts {
		if strings.Contains(text, s) {
			return true
		}
	}
	return false
}
