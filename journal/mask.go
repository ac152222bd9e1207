package journal

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"sync"
)

// Masked is what replaces a secret in a journal line.
const Masked = "••••"

// masker replaces registered secrets, in every form they may take in a
// line, with Masked. It is safe for concurrent use.
type masker struct {
	mu       sync.RWMutex
	forms    map[string]struct{}
	replacer *strings.Replacer // nil until a secret is registered
}

// add registers secret. Like lines, secrets are taken as UTF-8 text. Forms
// made only of the mask's own runes are left out: no replacement could hide
// them, and masking them would never end.
func (m *masker) add(secret string) {
	if secret == "" {
		return
	}
	secret = validUTF8(secret)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.forms == nil {
		m.forms = make(map[string]struct{})
	}
	grown := false
	for _, form := range secretForms(secret) {
		if _, known := m.forms[form]; known || onlyMaskRunes(form) {
			continue
		}
		m.forms[form] = struct{}{}
		grown = true
	}
	if grown {
		m.replacer = newLongestFirstReplacer(m.forms)
	}
}

// apply makes text valid UTF-8 and masks it. Masking repeats until nothing
// changes because a secret containing "•" can appear anew where a mask
// meets the text beside it. In valid UTF-8 every match falls on rune
// boundaries and each round replaces at least one rune that is not "•", so
// the loop ends.
func (m *masker) apply(text string) string {
	text = validUTF8(text)
	m.mu.RLock()
	r := m.replacer
	m.mu.RUnlock()
	if r == nil {
		return text
	}
	for {
		masked := r.Replace(text)
		if masked == text {
			return masked
		}
		text = masked
	}
}

// secretForms lists how secret may appear in a line: as is, and as
// encoding/json writes it inside a string, with and without HTML escaping
// (a plugin echoing a request or a config on stderr).
func secretForms(secret string) []string {
	return []string{secret, jsonForm(secret, true), jsonForm(secret, false)}
}

func jsonForm(s string, escapeHTML bool) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(escapeHTML)
	_ = enc.Encode(s) // a string always encodes
	quoted := strings.TrimSuffix(buf.String(), "\n")
	return quoted[1 : len(quoted)-1]
}

// validUTF8 replaces each run of bytes that is not UTF-8 with U+FFFD:
// journal lines are text, and the same rule applied to secrets keeps them
// matching the lines they appear in.
func validUTF8(s string) string {
	return strings.ToValidUTF8(s, "\uFFFD")
}

func onlyMaskRunes(s string) bool {
	return strings.Trim(s, Masked) == ""
}

// newLongestFirstReplacer builds a replacer that, where several forms
// start at the same place, hides the longest: strings.Replacer tries its
// pairs in argument order.
func newLongestFirstReplacer(forms map[string]struct{}) *strings.Replacer {
	sorted := make([]string, 0, len(forms))
	for form := range forms {
		sorted = append(sorted, form)
	}
	slices.SortFunc(sorted, func(a, b string) int {
		return cmp.Or(cmp.Compare(len(b), len(a)), strings.Compare(a, b))
	})
	pairs := make([]string, 0, 2*len(sorted))
	for _, form := range sorted {
		pairs = append(pairs, form, Masked)
	}
	return strings.NewReplacer(pairs...)
}
