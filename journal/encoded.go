package journal

import (
	"encoding/base64"
	"strings"
)

// Bounds of the URL and base64 views.
const (
	// maxPercentDepth is how many times percent escapes are decoded: a
	// value in a query (once), that URL passed in another's query (twice).
	maxPercentDepth = 2
	// minBase64Needle is the shortest secret searched inside base64: the
	// few bytes of a shorter one turn up in what any long word decodes to.
	minBase64Needle = minPartBytes
)

// percentViews are text with its percent escapes (%2B, %2b) decoded once
// and twice, and, when text holds a '+', decoded once with '+' read as a
// space, as HTML forms write it. A view is left out when it is text
// itself.
func percentViews(text string) []view {
	var out []view
	if strings.IndexByte(text, '%') >= 0 {
		v := identityView(text)
		for range maxPercentDepth {
			next, changed := v.percentDecoded(false)
			if !changed {
				break
			}
			out = append(out, next)
			v = next
		}
	}
	if strings.IndexByte(text, '+') >= 0 {
		next, _ := identityView(text).percentDecoded(true)
		out = append(out, next)
	}
	return out
}

// percentDecoded decodes the %XX escapes of v once, and '+' as a space
// when plus is true; a '%' not followed by two hex digits stays as it is.
func (v view) percentDecoded(plus bool) (next view, changed bool) {
	text := v.text
	out := view{starts: make([]int32, 0, len(text)), ends: make([]int32, 0, len(text))}
	var b strings.Builder
	b.Grow(len(text))
	for i := 0; i < len(text); {
		c, n := text[i], 1
		switch {
		case c == '%' && i+2 < len(text) && isHex(text[i+1]) && isHex(text[i+2]):
			hi, _ := hexDigit(text[i+1])
			lo, _ := hexDigit(text[i+2])
			c, n = hi<<4|lo, 3
		case c == '+' && plus:
			c = ' '
		}
		changed = changed || n > 1 || c != text[i]
		b.WriteByte(c)
		out.starts = append(out.starts, int32(v.start(i)))
		out.ends = append(out.ends, int32(v.end(i+n-1)))
		i += n
	}
	out.text = b.String()
	out.partial = len(out.text)
	return out, changed
}

func isHex(c byte) bool {
	_, ok := hexDigit(c)
	return ok
}

// appendBase64 appends the span of every base64 token of v (a run of the
// standard or URL alphabet, with its padding) whose decoded bytes hold a
// needle: the whole token, since a secret inside base64 (a Basic
// credential, base64 of user:secret) starts at any offset of its text and
// changes the characters around it.
func (s *maskSet) appendBase64(spans []span, v view) []span {
	if s.shortestBase64 == 0 {
		return spans
	}
	minRun := base64Len(s.shortestBase64)
	text := v.text
	for i := 0; ; {
		start, end, ok := nextBase64Run(text, i, minRun)
		if !ok {
			return spans
		}
		run := text[start:end]
		for pad := 0; pad < 2 && end < len(text) && text[end] == '='; pad++ {
			end++
		}
		if s.base64Holds(run) {
			spans = append(spans, v.source(start, end))
		}
		i = end
	}
}

// nextBase64Run finds the next run of base64 characters at least minRun
// long from i on (text[i-1], if any, is not one). It looks at the last
// character a run starting at i would need first, so that ordinary words
// shorter than minRun are skipped mostly unread.
func nextBase64Run(text string, i, minRun int) (start, end int, ok bool) {
	for i+minRun <= len(text) {
		last := i + minRun - 1
		k := last
		for k >= i && isBase64(text[k]) {
			k--
		}
		if k >= i {
			i = k + 1 // no run of minRun fits across text[k]
			continue
		}
		end = last + 1
		for end < len(text) && isBase64(text[end]) {
			end++
		}
		return i, end, true
	}
	return 0, 0, false
}

// base64Holds reports whether run, decoded from any of its first four
// characters (a token glued to text before it), holds a needle.
func (s *maskSet) base64Holds(run string) bool {
	std := urlToStd.Replace(run)
	for from := range min(4, len(std)) {
		part := std[from:]
		if len(part)%4 == 1 {
			part = part[:len(part)-1] // a lone last character holds no whole byte
		}
		decoded, err := base64.RawStdEncoding.DecodeString(part)
		if err != nil {
			continue
		}
		text := string(decoded)
		for _, needle := range s.inBase64 {
			if strings.Contains(text, needle) {
				return true
			}
		}
	}
	return false
}

// urlToStd writes the URL alphabet's two characters as the standard
// alphabet's.
var urlToStd = strings.NewReplacer("-", "+", "_", "/")

// base64Needles are the secrets of known looked for inside base64, and
// the length of the shortest. Whole secrets only, not the lines of a
// multi-line one: base64 holds what was given to it whole (a password in
// user:password), and a key's lines, base64 themselves, are found as they
// are. Each token shorter than the shortest secret's base64 is skipped
// without decoding, so ordinary words cost a glance.
func base64Needles(known map[string]struct{}) (needles []string, shortest int) {
	for secret := range known {
		if len(secret) < minBase64Needle {
			continue
		}
		needles = append(needles, secret)
		if shortest == 0 || len(secret) < shortest {
			shortest = len(secret)
		}
	}
	return sortedUnique(needles), shortest
}

// base64Len is the fewest base64 characters that can hold n whole bytes.
func base64Len(n int) int { return (4*n + 2) / 3 }

func isBase64(c byte) bool { return base64Chars[c] }

// base64Chars holds the characters of the standard and URL alphabets.
var base64Chars = func() (set [256]bool) {
	for _, c := range []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_") {
		set[c] = true
	}
	return set
}()
