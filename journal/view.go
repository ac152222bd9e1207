package journal

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDecodeDepth is how many times JSON string escapes are decoded in
// search of a secret: a value in a JSON document (once), that document
// logged as a JSON string (twice), and that line echoed in JSON again.
const maxDecodeDepth = 3

// view is a text derived from a source text, with, for each of its bytes,
// the span of the source it came from.
type view struct {
	text   string
	starts []int32 // starts[i]: where the source of byte i begins; nil: the view is its source
	ends   []int32 // ends[i]: where it ends
	// partial is where a last escape cut short (or a lone high surrogate
	// at the very end) begins in text: it may be the start of a secret's
	// next character. len(text) when there is none.
	partial int
}

// span is a part [start, end) of a source text.
type span struct{ start, end int }

func identityView(text string) view {
	return view{text: text, partial: len(text)}
}

// source is the span of the source that bytes [i, j) of the view came from.
func (v view) source(i, j int) span {
	return span{v.start(i), v.end(j - 1)}
}

func (v view) start(i int) int {
	if v.starts == nil {
		return i
	}
	return int(v.starts[i])
}

func (v view) end(i int) int {
	if v.ends == nil {
		return i + 1
	}
	return int(v.ends[i])
}

// decoded decodes the JSON string escapes of v once: \" \\ \/ \b \f \n \r
// \t and \uXXXX (any case; a surrogate pair is one character, a lone
// surrogate U+FFFD, as encoders write and decoders read them). Anything
// else stays as it is. changed is false when there was no escape.
func (v view) decoded() (next view, changed bool) {
	if !strings.Contains(v.text, `\`) {
		return view{text: v.text, starts: v.starts, ends: v.ends, partial: len(v.text)}, false
	}
	d := decoder{src: v, out: view{partial: -1, starts: make([]int32, 0, len(v.text)), ends: make([]int32, 0, len(v.text))}}
	d.buf.Grow(len(v.text))
	for d.at < len(v.text) {
		d.step()
	}
	d.out.text = d.buf.String()
	if d.out.partial < 0 {
		d.out.partial = len(d.out.text)
	}
	return d.out, d.changed
}

type decoder struct {
	src     view
	at      int
	buf     strings.Builder
	out     view
	changed bool
}

func (d *decoder) step() {
	text := d.src.text
	if text[d.at] != '\\' {
		// Up to the next escape, bytes come as they are.
		n := strings.IndexByte(text[d.at:], '\\')
		if n < 0 {
			n = len(text) - d.at
		}
		d.copyRaw(n)
		return
	}
	if d.at+1 >= len(text) {
		d.partialIf(text[d.at] == '\\')
		d.emit(text[d.at:d.at+1], d.at, d.at+1)
		return
	}
	if b, ok := shortEscape(text[d.at+1]); ok {
		d.emit(string(b), d.at, d.at+2)
		return
	}
	r, n, whole := unicodeEscape(text[d.at:])
	switch {
	case n > 0 && !whole:
		d.partialIf(true) // a lone high surrogate at the very end
		d.emit(string(r), d.at, d.at+n)
	case n > 0:
		d.emit(string(r), d.at, d.at+n)
	default:
		d.partialIf(isEscapePrefix(text[d.at:]))
		d.emit(text[d.at:d.at+1], d.at, d.at+1)
	}
}

// copyRaw appends the next n source bytes unchanged.
func (d *decoder) copyRaw(n int) {
	for i := d.at; i < d.at+n; i++ {
		d.out.starts = append(d.out.starts, int32(d.src.start(i)))
		d.out.ends = append(d.out.ends, int32(d.src.end(i)))
	}
	d.buf.WriteString(d.src.text[d.at : d.at+n])
	d.at += n
}

// partialIf marks the byte about to be emitted as the start of a cut
// escape, if cut says so and nothing was marked yet.
func (d *decoder) partialIf(cut bool) {
	if cut && d.out.partial < 0 {
		d.out.partial = d.buf.Len()
	}
}

// emit appends out, decoded from source bytes [from, to) of the view.
func (d *decoder) emit(out string, from, to int) {
	if to-from != len(out) || out != d.src.text[from:to] {
		d.changed = true
	}
	s, e := int32(d.src.start(from)), int32(d.src.end(to-1))
	for range len(out) {
		d.out.starts = append(d.out.starts, s)
		d.out.ends = append(d.out.ends, e)
	}
	d.buf.WriteString(out)
	d.at = to
}

func shortEscape(c byte) (byte, bool) {
	switch c {
	case '"', '\\', '/':
		return c, true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}

// unicodeEscape decodes a \uXXXX escape at the start of s, joining a
// surrogate pair. n is the bytes it takes (0: none there). whole is false
// for a high surrogate that ends s, whose pair may have been cut off.
func unicodeEscape(s string) (r rune, n int, whole bool) {
	u, ok := hex4(s)
	if !ok {
		return 0, 0, false
	}
	r1 := rune(u)
	if !utf16.IsSurrogate(r1) {
		return r1, 6, true
	}
	if lo, ok := hex4(s[6:]); ok {
		if r := utf16.DecodeRune(r1, rune(lo)); r != utf8.RuneError {
			return r, 12, true
		}
	}
	cutPair := r1 < 0xDC00 && (len(s) == 6 || isEscapePrefix(s[6:]))
	return utf8.RuneError, 6, !cutPair
}

// hex4 reads "\uXXXX" at the start of s.
func hex4(s string) (uint16, bool) {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return 0, false
	}
	var u uint16
	for _, c := range []byte(s[2:6]) {
		h, ok := hexDigit(c)
		if !ok {
			return 0, false
		}
		u = u<<4 | uint16(h)
	}
	return u, true
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// isEscapePrefix reports s, the end of a text, as the start of an escape
// cut short: "\", "\u" and up to three hex digits.
func isEscapePrefix(s string) bool {
	if len(s) < 2 || len(s) > 5 || s[1] != 'u' {
		return s == `\`
	}
	for _, c := range []byte(s[2:]) {
		if _, ok := hexDigit(c); !ok {
			return false
		}
	}
	return true
}

// isEscapeTail reports s, the start of a text, as what may follow a cut
// inside an escape: one short-escape letter, or "u" and hex digits, or hex
// digits alone (at most five bytes in all).
func isEscapeTail(s string) bool {
	if s == "" || len(s) > 5 {
		return false
	}
	if len(s) == 1 {
		if _, ok := shortEscape(s[0]); ok {
			return true
		}
	}
	s = strings.TrimPrefix(s, "u")
	for _, c := range []byte(s) {
		if _, ok := hexDigit(c); !ok {
			return false
		}
	}
	return true
}

// replaceSpans replaces the union of spans of text with Masked, once per
// run of overlapping spans (spans that only touch are masked apart, so the
// journal still shows two secrets side by side as two).
func replaceSpans(text string, spans []span) string {
	if len(spans) == 0 {
		return text
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	var b strings.Builder
	at := 0
	for i := 0; i < len(spans); {
		start, end := spans[i].start, spans[i].end
		for i++; i < len(spans) && spans[i].start < end; i++ {
			end = max(end, spans[i].end)
		}
		b.WriteString(text[at:start])
		b.WriteString(Masked)
		at = end
	}
	b.WriteString(text[at:])
	return b.String()
}
