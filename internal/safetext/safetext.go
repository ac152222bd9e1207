// Package safetext makes text that comes from a plugin's manifest, a
// project file or a plugin itself safe to print to a terminal: what could
// act on the terminal (ANSI escapes, NUL, carriage returns), hide or
// reorder what follows (Unicode bidirectional controls), or break a line
// is shown escaped instead, as Go writes it in a quoted string.
package safetext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line returns s with every unsafe character escaped: control characters
// (C0, DEL, C1) as \x1b, \n, \t…, bidirectional controls and line or
// paragraph separators as \u202e…, and bytes that are not UTF-8 as \xff.
// A safe text comes back unchanged.
func Line(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unsafe(r):
			b.WriteString(escape(r))
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// KeepTabs is Line with tabs kept as they are: for a line of a log, where
// a tab indents (a stack trace) and does nothing else to a terminal.
func KeepTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return Line(s)
	}
	parts := strings.Split(s, "\t")
	for i, p := range parts {
		parts[i] = Line(p)
	}
	return strings.Join(parts, "\t")
}

// Lines applies Line to each of texts, in a new slice.
func Lines(texts []string) []string {
	if texts == nil {
		return nil
	}
	out := make([]string, len(texts))
	for i, t := range texts {
		out[i] = Line(t)
	}
	return out
}

func needsEscape(s string) bool {
	return !utf8.ValidString(s) || strings.ContainsFunc(s, unsafe)
}

// unsafe reports a rune that must not reach a terminal as is.
func unsafe(r rune) bool {
	if unicode.IsControl(r) {
		return true
	}
	switch {
	case r == '\u061c', r == '\u200e', r == '\u200f': // ALM, LRM, RLM
		return true
	case '\u202a' <= r && r <= '\u202e': // LRE, RLE, PDF, LRO, RLO
		return true
	case '\u2066' <= r && r <= '\u2069': // LRI, RLI, FSI, PDI
		return true
	case r == '\u2028', r == '\u2029':
		return true
	}
	return false
}

func escape(r rune) string {
	switch r {
	case '\a':
		return `\a`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	case '\v':
		return `\v`
	}
	if r < 0x100 {
		return fmt.Sprintf(`\x%02x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}
