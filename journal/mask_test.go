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
		{"overlap hides both", []string{"abc", "cde"}, "abcde", "••••"},
		{"secret made of dots ignored", []string{"••"}, "••", "••"},
		{"mask meeting text", []string{"x•"}, "xx•", "•••••••"},
		{"not UTF-8 secret", []string{"k\xff"}, "k\xff!", "••••!"},
		// Encoders write more than the quote and backslash escapes.
		{"PHP slash", []string{"https://h/k"}, `{"u":"https:\/\/h\/k"}`, `{"u":"••••"}`},
		{"Python ensure_ascii", []string{"clé"}, `{"k": "cl\u00e9"}`, `{"k": "••••"}`},
		{"upper-case hex", []string{"clé"}, `"cl\u00E9"`, `"••••"`},
		{"fully escaped ASCII", []string{"tok"}, `"\u0074\u006f\u006B"`, `"••••"`},
		{"mixed escapes", []string{`a/b"c`}, `"\u0061\/b\u0022c"`, `"••••"`},
		{"surrogate pair", []string{"k😀y"}, `"k\ud83d\ude00y"`, `"••••"`},
		{"surrogate pair, upper case", []string{"k😀y"}, `"k\uD83D\uDE00y"`, `"••••"`},
		{"JSON in a JSON string", []string{`p"w`}, `{"log":"{\"pw\":\"p\\\"w\"}"}`, `{"log":"{\"pw\":\"••••\"}"}`},
		{"escaped twice", []string{"é"}, `"\\u00e9"`, `"••••"`},
		{"escape of a masked neighbour", []string{"ab"}, `\u0061b`, `••••`},
		{"as the host test has it", []string{`s3cr"et`}, `leaking s3cr"et and "s3cr\"et"`, `leaking •••• and "••••"`},
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

const testPEM = "-----BEGIN PRIVATE KEY-----\n" +
	"MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n" +
	"MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu\n" +
	"NMoSfm76oqFvAp8Gy0iz5sxjZmSnXyCdPEovGhLa0VzMaQ8s+CLOyS56YyCFGeJZ\n" +
	"-----END PRIVATE KEY-----\n"

// TestMaskMultiLineSecret hides each line of a PEM key when the lines
// arrive one by one, as stderr lines and log messages do.
func TestMaskMultiLineSecret(t *testing.T) {
	j, _ := openTest(t, Options{}, hooks{})
	j.Mask(testPEM)
	for l := range strings.SplitSeq(strings.TrimSuffix(testPEM, "\n"), "\n") {
		j.Write(TagStderr, "key: "+l)
	}
	j.Write(TagStderr, strings.ReplaceAll(testPEM, "\n", "\r\n")) // whole, with CRLF
	j.Write(TagStderr, "{}")                                      // not a line of the key
	got := mustTail(t, j, 20)
	for _, l := range got {
		for part := range strings.SplitSeq(testPEM, "\n") {
			if len(part) >= minPartBytes && strings.Contains(l, part) {
				t.Errorf("line %q holds %q of the key", l, part)
			}
		}
	}
	if last := got[len(got)-1]; last != line("stderr", "{}") {
		t.Errorf("last line = %q, want {} untouched", last)
	}
}

// TestMaskCutLine hides both pieces of a secret cut in two by a split made
// before the journal (a long stderr line arrives in chunks).
func TestMaskCutLine(t *testing.T) {
	const secret = "tok-ABCDEFGHIJKLMNOP"
	for cut := 1; cut < len(secret); cut++ {
		j, _ := openTest(t, Options{}, hooks{})
		j.Mask(secret)
		j.Write(TagStderr, "x="+secret[:cut])
		j.Write(TagStderr, secret[cut:]+" y")
		got := strings.Join(mustTail(t, j, 2), "")
		left, right := secret[:cut], secret[cut:]
		if len(left) >= maxEdgeBytes && strings.Contains(got, left) || len(right) >= maxEdgeBytes && strings.Contains(got, right) {
			t.Errorf("cut at %d: %q shows a piece of the secret", cut, got)
		}
	}
}

// TestMaskCutEscaped hides pieces of a secret cut inside its JSON escapes.
func TestMaskCutEscaped(t *testing.T) {
	var m masker
	m.add("cl€f-s3cr3t")
	encoded := `{"k":"\u0063\u006c\u20ac\u0066-\u0073\u0033cr3t"}`
	for cut := 1; cut < len(encoded); cut++ {
		a, b := m.applyLine(encoded[:cut]), m.applyLine(encoded[cut:])
		if anyContains(decodeAll(a+b), "cl€f-s3cr3t") {
			t.Errorf("cut at %d: %q + %q decodes to the secret", cut, a, b)
		}
	}
}

func TestCapLine(t *testing.T) {
	long := strings.Repeat("é", 100) // 200 bytes
	tests := []struct {
		line    string
		maxLine int
		want    string
	}{
		{"short", 64, "short"},
		{strings.Repeat("a", 64), 64, strings.Repeat("a", 64)},
		{strings.Repeat("a", 100), 64, strings.Repeat("a", 44) + " … (56 bytes cut)"},
		{long, 64, strings.Repeat("é", 22) + " … (156 bytes cut)"},
		{long, 65, strings.Repeat("é", 22) + " … (156 bytes cut)"},
	}
	for _, tt := range tests {
		got := capLine(tt.line, tt.maxLine)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("capLine(%.20q…, %d) (-want +got):\n%s", tt.line, tt.maxLine, diff)
		}
		if len(got) > tt.maxLine || !utf8.ValidString(got) {
			t.Errorf("capLine(%.20q…, %d) = %d bytes, valid %v", tt.line, tt.maxLine, len(got), utf8.ValidString(got))
		}
	}
}

// TestMaskBeforeCap masks a secret that the cap of a line cuts through.
func TestMaskBeforeCap(t *testing.T) {
	j, _ := openTest(t, Options{MaxLine: 64}, hooks{})
	const secret = "0123456789abcdefghij"
	j.Mask(secret)
	j.Write(TagStderr, strings.Repeat("x", 40)+secret+strings.Repeat("y", 40))
	got := mustTail(t, j, 1)[0]
	if strings.Contains(got, "0123") || !strings.Contains(got, "•") {
		t.Errorf("capped line %q shows the secret's start", got)
	}
}

func TestExcerpt(t *testing.T) {
	j, _ := openTest(t, Options{}, hooks{})
	const secret = "s3cr3t-value"
	j.Mask(secret)
	text := strings.Repeat("a", 195) + secret + "…"
	got := j.Excerpt(text, 200)
	if strings.Contains(got, "s3cr") || len(got) > 200 || !utf8.ValidString(got) {
		t.Errorf("Excerpt = %q", got)
	}
	if got := j.MaskedText("a " + secret); got != "a ••••" {
		t.Errorf("MaskedText = %q", got)
	}
}

// decodeAll returns text and its views decoded as JSON string escapes as
// often as the masker decodes it, for checking that none holds a secret.
func decodeAll(text string) []string {
	views := []string{text}
	v := identityView(text)
	for range maxDecodeDepth {
		next, changed := v.decoded()
		if !changed {
			break
		}
		v = next
		views = append(views, v.text)
	}
	return views
}

// escapeAnyWay writes s as a JSON string body, each rune escaped as the
// next choice says: as is (never for a backslash), \uXXXX in lower or
// upper case, or its short escape.
func escapeAnyWay(s string, choices []byte) string {
	var b strings.Builder
	for i, r := range s {
		c := byte(0)
		if len(choices) > 0 {
			c = choices[i%len(choices)]
		}
		short := map[rune]string{'"': `\"`, '\\': `\\`, '/': `\/`, '\b': `\b`, '\f': `\f`, '\n': `\n`, '\r': `\r`, '\t': `\t`}[r]
		switch {
		case c%4 == 0 && r != '\\':
			b.WriteRune(r)
		case c%4 == 3 && short != "":
			b.WriteString(short)
		default:
			format := "%04x"
			if c%4 == 2 {
				format = "%04X"
			}
			if r > 0xFFFF {
				hi, lo := utf16Pair(r)
				b.WriteString(hexEscape(format, hi) + hexEscape(format, lo))
			} else {
				b.WriteString(hexEscape(format, r))
			}
		}
	}
	return b.String()
}

// TestWriteEscapesControls: a plugin's stderr with ANSI escapes or a lone
// carriage return was written as is, and acted on the terminal of whoever
// read the journal (escouade-plugin journal, tail -f).
func TestWriteEscapesControls(t *testing.T) {
	j, _ := openTest(t, Options{}, hooks{})
	j.Mask("k\x1bey")
	j.Write(TagStderr, "\x1b[2Jcleared\rfaked line\x00 \u202eevil\tkept k\x1bey")
	want := []string{line("stderr", `\x1b[2Jcleared\rfaked line\x00 \u202eevil`+"\t"+`kept ••••`)}
	if diff := cmp.Diff(want, mustTail(t, j, 1)); diff != "" {
		t.Errorf("Tail (-want +got):\n%s", diff)
	}
}

// TestMaskCutInsideEscape: cuts that fell inside an escape, found by the
// fuzz target, each left the secret whole where the pieces meet.
func TestMaskCutInsideEscape(t *testing.T) {
	tests := []struct {
		secret, text string
		cut          int
	}{
		{"A", `0\u00410`, 5},
		{"A", "\\u0041\n", 5},
		{"000000", `0000010\u003000001`, 8},
	}
	for _, tt := range tests {
		var m masker
		m.add(tt.secret)
		a, b := m.applyLine(tt.text[:tt.cut]), m.applyLine(tt.text[tt.cut:])
		if anyContains(decodeOnce(a+b), tt.secret) {
			t.Errorf("%q cut at %d: %q + %q shows %q", tt.text, tt.cut, a, b, tt.secret)
		}
	}
}

// TestMaskStderrChunks plays a long stderr line cut into 64 KiB chunks
// with a secret across the cut: neither chunk shows its piece, and both
// pass whole (the masks do not push them past the line cap).
func TestMaskStderrChunks(t *testing.T) {
	const chunk = 64 << 10
	const secret = "ghp_0123456789abcdefghijABCDEFGHIJ"
	for _, cut := range []int{1, 4, len(secret) / 2, len(secret) - 4, len(secret) - 1} {
		j, _ := openTest(t, Options{}, hooks{})
		j.Mask(secret)
		long := strings.Repeat("x", chunk-cut) + secret + strings.Repeat("y", 100)
		j.Write(TagStderr, long[:chunk])
		j.Write(TagStderr, long[chunk:])
		got := mustTail(t, j, 2)
		joined := strings.Join(got, "")
		if left, right := secret[:cut], secret[cut:]; len(left) >= maxEdgeBytes && strings.Contains(joined, left) || len(right) >= maxEdgeBytes && strings.Contains(joined, right) {
			t.Errorf("cut at %d: a piece of the secret shows", cut)
		}
		if strings.Contains(joined, "bytes cut") {
			t.Errorf("cut at %d: a chunk was capped", cut)
		}
	}
}
