package journal

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
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
// decoded view of them. Percent-encoded any way, or in base64 behind a
// user name, in a whole line, it is not in clear either, decoded or not. Only a piece shorter than the edge bound may stay
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
	f.Add("Zq9+sK/t0p=S3cr3t", "", "token=", "&x=1", []byte{1, 0, 2, 4}, 5)
	f.Add("correct horse", "", "Authorization: Basic ", "", []byte{7, 6, 5}, 3)
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
		checkURLAndBase64Forms(t, &m, s, validUTF8(before), validUTF8(after), choices)
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

// checkURLAndBase64Forms: the secret s percent-encoded as choices say
// (each byte as is, %XX, %xx, a space as '+'; once or twice), and in
// base64 after a user name (standard or URL alphabet, padded or not, the
// base64 itself percent-encoded or not), is hidden in a whole line: no
// view of the masked line, percent-decoded or base64-decoded, shows it.
func checkURLAndBase64Forms(t *testing.T, m *masker, s, before, after string, choices []byte) {
	t.Helper()
	if strings.Contains(s, "•") {
		return // a mask meeting such a secret can make it anew; FuzzMask checks lines alone
	}
	texts := []string{before + percentAnyWay(s, choices) + after}
	if len(s) >= minBase64Needle {
		user := before[:min(len(before), int(pick(choices, 1))%4)]
		texts = append(texts, before+"Basic "+base64AnyWay(user+":"+s, choices)+after)
	}
	for _, text := range texts {
		masked := m.apply(text)
		for _, view := range percentDecodedAll(masked) {
			if strings.Contains(view, s) || base64Shows(view, s) {
				t.Fatalf("secret %q, text %q: masked %q shows it in %q", s, text, masked, view)
			}
		}
	}
}

func pick(choices []byte, i int) byte {
	if len(choices) == 0 {
		return 0
	}
	return choices[i%len(choices)]
}

// percentAnyWay percent-encodes s byte by byte as choices say; '%' and '+'
// are always encoded, as every encoder does.
func percentAnyWay(s string, choices []byte) string {
	var b strings.Builder
	form := pick(choices, 0)%2 == 1 // a space as '+'
	for i, c := range []byte(s) {
		switch k := pick(choices, i+1) % 3; {
		case c == ' ' && form:
			b.WriteByte('+')
		case k == 0 && c != '%' && c != '+' && c > ' ' && c < 0x7f:
			b.WriteByte(c)
		case k == 1:
			fmt.Fprintf(&b, "%%%02X", c)
		default:
			fmt.Fprintf(&b, "%%%02x", c)
		}
	}
	if pick(choices, 0)%4 >= 2 && !form {
		return strings.ReplaceAll(b.String(), "%", "%25") // encoded twice
	}
	return b.String()
}

func base64AnyWay(s string, choices []byte) string {
	encodings := []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding}
	out := encodings[pick(choices, 2)%4].EncodeToString([]byte(s))
	if pick(choices, 3)%2 == 1 {
		out = url.QueryEscape(out)
	}
	return out
}

var percentEscape = regexp.MustCompile(`%[0-9A-Fa-f]{2}`)

// percentDecodedAll is text and its percent escapes decoded once and
// twice, and once with '+' as a space.
func percentDecodedAll(text string) []string {
	unescape := func(s string) string {
		return percentEscape.ReplaceAllStringFunc(s, func(e string) string {
			n, _ := strconv.ParseUint(e[1:], 16, 8)
			return string([]byte{byte(n)})
		})
	}
	once := unescape(text)
	return []string{text, once, unescape(once), unescape(strings.ReplaceAll(text, "+", " "))}
}

var base64Run = regexp.MustCompile(`[A-Za-z0-9+/_-]+`)

// base64Shows reports a base64 run of text that, decoded from any of its
// first four characters, holds s.
func base64Shows(text, s string) bool {
	for _, run := range base64Run.FindAllString(text, -1) {
		run = strings.NewReplacer("-", "+", "_", "/").Replace(run)
		for from := range min(4, len(run)) {
			part := run[from:]
			if len(part)%4 == 1 {
				part = part[:len(part)-1]
			}
			if decoded, err := base64.RawStdEncoding.DecodeString(part); err == nil && strings.Contains(string(decoded), s) {
				return true
			}
		}
	}
	return false
}
