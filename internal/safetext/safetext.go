// Package safetext makes text that comes from a plugin's manifest, a
// project file or a plugin itself safe to print to a terminal: what could
// act on the terminal (ANSI escapes, NUL, carriage returns), hide or
// reorder what follows (Unicode bidirectional controls, invisible format
// characters), or break a line is shown escaped instead, as Go writes it
// in a quoted string.
package safetext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line returns s with every unsafe character escaped: control characters
// (C0, DEL, C1) as \x1b, \n, \t…, bidirectional controls, line or
// paragraph separators and invisible format characters as \u202e…, and
// bytes that are not UTF-8 as \xff.
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
		case Unsafe(r):
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

// Text is a text of several lines made safe as a log shows it: its line
// breaks kept, each line escaped as KeepTabs escapes it (a carriage return
// included, so no line can be drawn over another).
func Text(s string) string {
	if !strings.Contains(s, "\n") {
		return KeepTabs(s)
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = KeepTabs(l)
	}
	return strings.Join(lines, "\n")
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
	return !utf8.ValidString(s) || strings.ContainsFunc(s, Unsafe)
}

// Unsafe reports a rune that must never reach a person as is: what Line
// escapes. The manifest refuses these in every text it holds.
func Unsafe(r rune) bool { return Kind(r) != "" }

// Kind names the family of an unsafe rune ("a control character", "a line
// separator", "a bidirectional control", "an invisible format character"),
// or returns "" for a safe one. It is the one list of what can act on a
// terminal, break a line, or reorder or hide text.
//
// Zero-width joiner and non-joiner (U+200C, U+200D) are safe: scripts such
// as Persian and Devanagari and emoji sequences need them, and they neither
// reorder nor hide text.
func Kind(r rune) string {
	switch {
	case unicode.IsControl(r): // C0, DEL, C1
		return "a control character"
	case r == '\u2028', r == '\u2029':
		return "a line separator"
	case r == '\u061c', r == '\u200e', r == '\u200f', // ALM, LRM, RLM
		'\u202a' <= r && r <= '\u202e', // LRE, RLE, PDF, LRO, RLO
		'\u2066' <= r && r <= '\u2069': // LRI, RLI, FSI, PDI
		return "a bidirectional control"
	case invisible(r):
		return "an invisible format character"
	}
	return ""
}

// invisible reports a format character that shows nothing and can hide
// text between visible ones, or carry text no one sees.
func invisible(r rune) bool {
	switch {
	case r == '\u200b', r == '\ufeff': // zero-width space, zero-width no-break space
		return true
	case '\u2060' <= r && r <= '\u2064': // word joiner, invisible operators
		return true
	case '\u206a' <= r && r <= '\u206f': // deprecated shaping and swapping controls
		return true
	case '\ufff9' <= r && r <= '\ufffb': // interlinear annotation: hides its text
		return true
	case '\U000e0000' <= r && r <= '\U000e007f': // tags: ASCII no one sees
		return true
	}
	return false
}

// Code writes r as Unicode names it, U+001B, for a message.
func Code(r rune) string { return fmt.Sprintf("U+%04X", r) }

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
	switch {
	case r < 0x100:
		return fmt.Sprintf(`\x%02x`, r)
	case r > 0xFFFF:
		return fmt.Sprintf(`\U%08x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}
