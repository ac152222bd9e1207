package journal

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// Masked is what replaces a secret in a journal line.
const Masked = "••••"

// Bounds of masking.
const (
	// minPartBytes is the shortest line of a multi-line secret hidden on
	// its own: a PEM key's lines reach the journal one by one (stderr and
	// log messages are split into lines first), but hiding every "}" or
	// "-----" of the journal would hide ordinary text, and fewer bytes
	// than this reveal next to nothing of a key.
	minPartBytes = 4
	// maxEdgeBytes bounds the fragment of a secret left in clear at a line
	// edge that may be a cut (see masker.edges).
	maxEdgeBytes = 4
	// maxRounds bounds the rounds of masking of one text. Only a secret
	// holding "•" can need more than one (it can appear anew where a mask
	// meets the text beside it); past this many the whole text is hidden
	// rather than spend time quadratic in its length.
	maxRounds = 16
)

// masker replaces registered secrets, in every form they may take in a
// line, with Masked. It is safe for concurrent use.
//
// These views of a line are searched, because a secret reaches the
// journal in more shapes than can be listed:
//   - the line as is, for the secret as is and the forms JSON encoders
//     write of it (encoding/json with and without HTML escaping,
//     JSON.stringify, Python's ensure_ascii, PHP's escaped slashes);
//   - the line with its JSON string escapes decoded, once, twice, thrice
//     (JSON inside a JSON string), so that any mix of \uXXXX (either
//     case, surrogate pairs), \/ and the short escapes matches, whoever
//     wrote it;
//   - the line with its percent escapes decoded (either case, once and
//     twice, '+' as a space or not): a secret in a URL or a form body;
//   - the base64 tokens of the line and of those views, decoded: a secret
//     in a Basic credential (base64 of user:secret) hides the whole token;
//   - the edges of the line, where a longer line may have been cut before
//     the journal saw it (stderr chunks, excerpts): a piece of a secret
//     that begins or ends the line is hidden.
type masker struct {
	mu  sync.RWMutex
	set *maskSet // nil until a secret is registered; replaced, never changed
}

// maskSet is what one state of the registered secrets masks with.
type maskSet struct {
	needles []string   // decoded texts to hide, longest first
	literal []string   // their literal forms, longest first
	forms   []edgeForm // the same, for the edges of a line
	// fails and revFails are the KMP failure functions of the needles and
	// of the needles reversed.
	fails, revFails [][]int32
	revNeedles      []string
	longest         int      // bytes of the longest needle
	longestForm     int      // bytes of the longest literal form
	inBase64        []string // the secrets looked for inside base64 tokens
	shortestBase64  int      // bytes of the shortest of them; 0: none

	known map[string]struct{}
}

// add registers secret. Like lines, secrets are taken as UTF-8 text. Texts
// made only of the mask's own runes are left out: no replacement could
// hide them, and masking them would never end.
func (m *masker) add(secret string) {
	secret = validUTF8(secret)
	if secret == "" || onlyMaskRunes(secret) {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	old := m.set
	if old != nil {
		if _, known := old.known[secret]; known {
			return
		}
	}
	m.set = old.with(secret)
}

// with returns a new set holding s's texts and secret's.
func (s *maskSet) with(secret string) *maskSet {
	known := map[string]struct{}{secret: {}}
	needles := secretTexts(secret)
	if s != nil {
		for k := range s.known {
			known[k] = struct{}{}
		}
		needles = append(needles, s.needles...)
	}
	needles = sortedUnique(needles)
	var literal []string
	for _, needle := range needles {
		literal = append(literal, encodedForms(needle)...)
	}
	literal = sortedUnique(literal)
	forms := make([]edgeForm, 0, len(literal))
	longestForm := 0
	for _, form := range literal {
		forms = append(forms, newEdgeForm(form))
		longestForm = max(longestForm, len(form))
	}
	set := &maskSet{needles: needles, literal: literal, forms: forms, known: known, longestForm: longestForm}
	for _, needle := range needles {
		set.longest = max(set.longest, len(needle))
		set.fails = append(set.fails, failure(needle))
		set.revNeedles = append(set.revNeedles, reverseBytes(needle))
		set.revFails = append(set.revFails, failure(reverseBytes(needle)))
	}
	set.inBase64, set.shortestBase64 = base64Needles(known)
	return set
}

// secretTexts is what of secret is hidden wherever it appears: the secret,
// and each of its lines long enough to stand for it.
func secretTexts(secret string) []string {
	texts := []string{secret}
	if !strings.ContainsAny(secret, "\r\n") {
		return texts
	}
	for _, part := range strings.FieldsFunc(secret, func(r rune) bool { return r == '\n' || r == '\r' }) {
		part = strings.TrimSpace(part)
		if len(part) >= minPartBytes && !onlyMaskRunes(part) {
			texts = append(texts, part)
		}
	}
	return texts
}

// sortedUnique sorts texts longest first and drops repeats and texts of
// mask runes only.
func sortedUnique(texts []string) []string {
	texts = slices.DeleteFunc(texts, onlyMaskRunes)
	slices.SortFunc(texts, func(a, b string) int {
		return cmp.Or(cmp.Compare(len(b), len(a)), strings.Compare(a, b))
	})
	return slices.Compact(texts)
}

func (m *masker) current() *maskSet {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.set
}

// apply makes text valid UTF-8 and hides every whole occurrence of a
// secret in it, in any of its forms.
func (m *masker) apply(text string) string {
	text = validUTF8(text)
	s := m.current()
	if s == nil {
		return text
	}
	return s.rounds(text, s.whole)
}

// applyLine is apply for one line of the journal, whose edges may also be
// cuts: a piece of a secret at either edge is hidden too.
func (m *masker) applyLine(line string) string {
	line = validUTF8(line)
	s := m.current()
	if s == nil {
		return line
	}
	return s.rounds(line, func(text string) string { return s.edges(s.whole(text)) })
}

// rounds repeats pass until nothing changes. In valid UTF-8 every match
// falls on rune boundaries and each change hides at least one rune that is
// not "•", so it ends; maxRounds keeps a hostile line from making it slow.
func (s *maskSet) rounds(text string, pass func(string) string) string {
	for range maxRounds {
		masked := pass(text)
		if masked == text {
			return masked
		}
		text = masked
	}
	return Masked
}

// whole hides every occurrence of a literal form of a secret in text, and
// of a secret in each decoded view of it (JSON escapes, percent escapes)
// and in the base64 tokens of the text and of its views: the union of all
// the spans found, so that overlapping secrets are all hidden.
func (s *maskSet) whole(text string) string {
	var spans []span
	for _, form := range s.literal {
		spans = appendMatches(spans, text, form, nil)
	}
	views := append(jsonViews(text), percentViews(text)...)
	for i := range views {
		for _, needle := range s.needles {
			spans = appendMatches(spans, views[i].text, needle, &views[i])
		}
	}
	spans = s.appendBase64(spans, identityView(text))
	for _, v := range views {
		spans = s.appendBase64(spans, v)
	}
	return replaceSpans(text, spans)
}

// jsonViews are text with its JSON string escapes decoded once, twice and
// thrice, as long as each decoding changes something.
func jsonViews(text string) []view {
	if !strings.Contains(text, `\`) {
		return nil
	}
	var out []view
	v := identityView(text)
	for range maxDecodeDepth {
		next, changed := v.decoded()
		if !changed {
			break
		}
		out = append(out, next)
		v = next
	}
	return out
}

// appendMatches appends the spans of every occurrence of needle in text,
// overlapping ones included, mapped to the source through v when text is
// a view.
func appendMatches(spans []span, text, needle string, v *view) []span {
	for at := 0; ; {
		i := strings.Index(text[at:], needle)
		if i < 0 {
			return spans
		}
		start, end := at+i, at+i+len(needle)
		if v != nil {
			spans = append(spans, v.source(start, end))
		} else {
			spans = append(spans, span{start, end})
		}
		_, size := utf8.DecodeRuneInString(text[start:])
		at = start + size
	}
}

// MaskedText returns text as Write would journal it: valid UTF-8, every
// registered secret hidden. Use it for a text cut or kept outside the
// journal, and cut after masking, never before.
func (j *Journal) MaskedText(text string) string {
	return j.masks.apply(text)
}

// Excerpt returns at most n bytes of text, after masking, cut before a
// rune: what an excerpt of a line (the start of a stdout line that is not
// JSON-RPC) must be built with, so that no secret is cut in two before
// being masked.
func (j *Journal) Excerpt(text string, n int) string {
	return cutRunes(j.masks.apply(text), n)
}

// cutRunes returns the longest prefix of valid UTF-8 text of at most n
// bytes that ends on a rune boundary.
func cutRunes(text string, n int) string {
	if len(text) <= n {
		return text
	}
	n = max(n, 0)
	for n > 0 && !runeStart(text[n]) {
		n--
	}
	return text[:n]
}

func runeStart(b byte) bool { return b&0xC0 != 0x80 }

// validUTF8 replaces each run of bytes that is not UTF-8 with U+FFFD:
// journal lines are text, and the same rule applied to secrets keeps them
// matching the lines they appear in.
func validUTF8(s string) string {
	return strings.ToValidUTF8(s, "\uFFFD")
}

func onlyMaskRunes(s string) bool {
	return strings.Trim(s, Masked) == ""
}
