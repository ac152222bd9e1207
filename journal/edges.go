package journal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// edgeForm is a literal form of a secret with what finding its pieces at
// the edges of a line takes: the KMP failure function of the form, and of
// the form reversed.
type edgeForm struct {
	text, reversed   string
	fail, failRevers []int32
}

func newEdgeForm(text string) edgeForm {
	rev := reverseBytes(text)
	return edgeForm{text: text, reversed: rev, fail: failure(text), failRevers: failure(rev)}
}

// edgeMin is the shortest piece of form hidden at an edge: at most
// maxEdgeBytes, and at most half the form, so that wherever a cut falls
// the larger side is hidden (also when the cut is a line break the split
// into lines drops).
func edgeMin(form string) int {
	return min(maxEdgeBytes, max(1, len(form)/2))
}

// edges hides what of a secret begins or ends line: a line may be one piece
// of a longer one cut before the journal saw it (a stderr line cut into
// chunks, the excerpt of a stdout line), and each piece then holds part of
// a secret no whole match finds. The piece hidden is the longest found,
// in the line as is (the literal forms) and in its decoded view (any mix
// of escapes, a cut falling inside one).
func (s *maskSet) edges(line string) string {
	if line == "" {
		return line
	}
	head, tail := 0, 0
	revHead := reverseBytes(line[:min(len(line), s.longestForm)])
	for _, f := range s.forms {
		k := overlap(line, f.text, f.fail)
		if k >= edgeMin(f.text) && !onlyMaskRunes(line[len(line)-k:]) {
			tail = max(tail, k)
		}
		n := min(len(line), len(f.text))
		k = overlap(revHead[len(revHead)-n:], f.reversed, f.failRevers)
		if k >= edgeMin(f.text) && !onlyMaskRunes(line[:k]) {
			head = max(head, k)
		}
	}
	if strings.Contains(line, `\`) || mayStartInEscape(line) {
		h, t := s.edgesInView(line)
		head, tail = max(head, h), max(tail, t)
	}
	return maskEdges(line, head, tail)
}

// edgesInView is edges on the decoded view of line, against the needles:
// it returns how many bytes of line to hide at its start and at its end.
// A cut may fall inside an escape: the end of the line may then hold the
// start of an escape, the start of the line the rest of one, and each
// counts as the character of the secret it can be the escape of.
func (s *maskSet) edgesInView(line string) (head, tail int) {
	// Only the ends matter: a piece of a needle at an edge comes from at
	// most maxEscapeLen bytes a character.
	reach := maxEscapeLen * (s.longest + 1)
	end := line
	if len(end) > reach {
		end = line[len(line)-reach:]
		for len(end) > 0 && !utf8.RuneStart(end[0]) {
			end = end[1:]
		}
	}
	v := decodedOrSelf(end)
	for i, needle := range s.needles {
		tail = max(tail, viewTail(end, v, needle, s.fails[i]))
	}
	for j := 0; j <= maxEscapeLen-1 && j <= len(line); j++ {
		cutEscape := line[:j]
		if j > 0 && !plausibleTail(cutEscape) {
			continue
		}
		rest := line[j:]
		w := decodedOrSelf(rest[:min(len(rest), reach)])
		revStart := reverseBytes(w.text[:min(len(w.text), s.longest)])
		for i, needle := range s.needles {
			if k, found := viewHead(w, revStart, needle, s.revNeedles[i], s.revFails[i], cutEscape); found {
				head = max(head, j+k)
			}
		}
	}
	return head, tail
}

// maxEscapeLen is the longest escape of one character: a surrogate pair.
const maxEscapeLen = len(`\ud83d\ude00`)

// decodedOrSelf is the decoded view of text (itself, when it holds no
// escape), which also says where an escape cut short ends it.
func decodedOrSelf(text string) view {
	next, _ := identityView(text).decoded()
	return next
}

// viewTail returns how many bytes at the end of line (whose view is v)
// hold the start of needle, or 0.
func viewTail(line string, v view, needle string, fail []int32) int {
	end := v.text[:v.partial]
	cutEscape := ""
	if v.partial < len(v.text) {
		cutEscape = line[v.source(v.partial, v.partial+1).start:]
	}
	k := overlap(end, needle, fail)
	for {
		shown := k
		if cutEscape != "" {
			r, size := utf8.DecodeRuneInString(needle[k:])
			if !escapeStarts(cutEscape, r) {
				shown = -1
			} else {
				shown += size
			}
		}
		if shown >= edgeMin(needle) && (k == 0 || !onlyMaskRunes(end[len(end)-k:])) {
			if k == 0 {
				return len(cutEscape)
			}
			return len(line) - v.source(len(end)-k, len(end)).start
		}
		if k == 0 {
			return 0
		}
		k = int(fail[k-1])
	}
}

// viewHead returns how many bytes at the start of rest (whose view is w)
// hold the end of needle, cutEscape (what precedes rest in the line, the
// rest of an escape cut short, or "") counting as the character before;
// found is false when they hold none.
// revStart is the start of w's text, reversed, at least as long as needle
// or the whole text.
func viewHead(w view, revStart, needle, revNeedle string, revFail []int32, cutEscape string) (n int, found bool) {
	start := w.text[:min(len(w.text), len(needle))]
	k := overlap(revStart[len(revStart)-len(start):], revNeedle, revFail)
	for {
		shown := k
		if cutEscape != "" {
			r, size := utf8.DecodeLastRuneInString(needle[:len(needle)-k])
			if !escapeEnds(cutEscape, r) {
				shown = -1
			} else {
				shown += size
			}
		}
		if shown >= edgeMin(needle) && (k == 0 || !onlyMaskRunes(start[:k])) {
			if k == 0 {
				return 0, true // cutEscape alone, which the caller counts
			}
			return w.source(0, k).end, true
		}
		if k == 0 {
			return 0, false
		}
		k = int(revFail[k-1])
	}
}

// escapeForms appends to buf the escapes of r, lower case: \uXXXX (a
// surrogate pair past U+FFFF), then its short escape if it has one; short
// is where that one starts, or len of the result.
func escapeForms(buf []byte, r rune) (forms []byte, short int) {
	if r > 0xFFFF {
		hi, lo := utf16Pair(r)
		buf = appendUnit(appendUnit(buf, hi), lo)
	} else {
		buf = appendUnit(buf, r)
	}
	short = len(buf)
	if esc, ok := shortEscapes[r]; ok {
		buf = append(buf, esc...)
	}
	return buf, short
}

func appendUnit(buf []byte, u rune) []byte {
	const hex = "0123456789abcdef"
	return append(buf, '\\', 'u', hex[u>>12&0xF], hex[u>>8&0xF], hex[u>>4&0xF], hex[u&0xF])
}

var shortEscapes = map[rune]string{'"': `\"`, '\\': `\\`, '/': `\/`, '\b': `\b`, '\f': `\f`, '\n': `\n`, '\r': `\r`, '\t': `\t`}

// escapeStarts reports cut, the end of a line, as the start of an escape
// of r cut short.
func escapeStarts(cut string, r rune) bool {
	return matchEscape(cut, r, strings.HasPrefix)
}

// escapeEnds reports cut, the start of a line, as the rest of an escape of
// r cut short.
func escapeEnds(cut string, r rune) bool {
	return matchEscape(cut, r, strings.HasSuffix)
}

func matchEscape(cut string, r rune, has func(s, part string) bool) bool {
	var arr [24]byte
	forms, short := escapeForms(arr[:0], r)
	cut = strings.ToLower(cut)
	for _, form := range []string{string(forms[:short]), string(forms[short:])} {
		if form != "" && len(cut) < len(form) && has(form, cut) {
			return true
		}
	}
	return false
}

// mayStartInEscape reports a line whose first byte may be the rest of an
// escape cut short.
func mayStartInEscape(line string) bool {
	c := line[0]
	_, hex := hexDigit(c)
	return hex || c == 'u' || strings.IndexByte(`"\/bfnrt`, c) >= 0
}

// plausibleTail reports s, the start of a line, as what a cut inside an
// escape may leave: the rest of a \uXXXX (hex digits, or "u" and four),
// possibly followed by one whole \uXXXX (a surrogate pair cut in its
// first half), or the letter of a short escape.
func plausibleTail(s string) bool {
	if len(s) == 1 && strings.ContainsRune(`"\/bfnrt`, rune(s[0])) {
		return true
	}
	if len(s) > 6 && s[len(s)-6] == '\\' {
		if _, ok := hex4(s[len(s)-6:]); ok {
			s = s[:len(s)-6]
		}
	}
	s = strings.TrimPrefix(s, "u")
	if s == "" || len(s) > 4 {
		return false
	}
	for _, c := range []byte(s) {
		if _, ok := hexDigit(c); !ok {
			return false
		}
	}
	return true
}

// maskEdges replaces the first head and the last tail bytes of line with
// Masked (once, if they meet).
func maskEdges(line string, head, tail int) string {
	switch {
	case head == 0 && tail == 0:
		return line
	case head+tail >= len(line):
		return Masked
	case head == 0:
		return line[:len(line)-tail] + Masked
	case tail == 0:
		return Masked + line[head:]
	}
	return Masked + line[head:len(line)-tail] + Masked
}

// overlap is the length of the longest suffix of text that is a proper
// prefix of form (fail is form's failure function): how much of form a
// text cut right after it holds at its end.
func overlap(text, form string, fail []int32) int {
	if len(form) < 2 {
		return 0
	}
	text = text[len(text)-min(len(text), len(form)-1):]
	k := 0
	for i := 0; i < len(text); i++ {
		for k > 0 && text[i] != form[k] {
			k = int(fail[k-1])
		}
		if text[i] == form[k] {
			k++
		}
		if k == len(form) {
			k = int(fail[k-1])
		}
	}
	return k
}

// overlapPlain is overlap with the failure function computed on the spot.
// Called on both texts reversed, it gives the longest prefix of a text
// that is a proper suffix of form.
func overlapPlain(text, form string) int {
	return overlap(text, form, failure(form))
}

// failure is the KMP failure function of s: fail[i] is the length of the
// longest proper prefix of s[:i+1] that is also its suffix.
func failure(s string) []int32 {
	fail := make([]int32, len(s))
	k := 0
	for i := 1; i < len(s); i++ {
		for k > 0 && s[i] != s[k] {
			k = int(fail[k-1])
		}
		if s[i] == s[k] {
			k++
		}
		fail[i] = int32(k)
	}
	return fail
}

func reverseBytes(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// encodedForms lists the literal forms text takes inside a JSON string as
// common encoders write it: as is, encoding/json with and without HTML
// escaping (Go), JSON.stringify (JS), json.dumps with ensure_ascii
// (Python) and json_encode (PHP: ensure_ascii with \/), and \uXXXX in
// upper case (Java, .NET). The decoded views find any other mix; these
// serve the edges, where a cut can fall inside an escape.
func encodedForms(text string) []string {
	return []string{
		text,
		goForm(text, true),
		goForm(text, false),
		asciiForm(text, false, "%04x", false),
		asciiForm(text, true, "%04x", false),
		asciiForm(text, false, "%04X", false),
		asciiForm(text, false, "%04x", true),
	}
}

func goForm(s string, escapeHTML bool) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(escapeHTML)
	_ = enc.Encode(s) // a string always encodes
	quoted := strings.TrimSuffix(buf.String(), "\n")
	return quoted[1 : len(quoted)-1]
}

// asciiForm writes s as a JSON string body with the short escapes, other
// control characters as \u00xx, and, unless keepNonASCII (JSON.stringify),
// every character past ASCII as \uXXXX in hexFormat (a surrogate pair past
// U+FFFF); slash escapes "/".
func asciiForm(s string, slash bool, hexFormat string, keepNonASCII bool) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '/' && slash:
			b.WriteString(`\/`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			fmt.Fprintf(&b, `\u`+hexFormat, r)
		case r < 0x80 || keepNonASCII:
			b.WriteRune(r)
		case r > 0xFFFF:
			hi, lo := utf16Pair(r)
			fmt.Fprintf(&b, `\u`+hexFormat+`\u`+hexFormat, hi, lo)
		default:
			fmt.Fprintf(&b, `\u`+hexFormat, r)
		}
	}
	return b.String()
}

func utf16Pair(r rune) (hi, lo rune) {
	r -= 0x10000
	return 0xD800 + r>>10, 0xDC00 + r&0x3FF
}
