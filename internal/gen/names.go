package main

import (
	"strings"
	"unicode"
)

// initialisms are the words Go spells in capitals.
var initialisms = map[string]string{"id": "ID", "url": "URL", "api": "API", "utf8": "UTF8", "json": "JSON"}

// exported turns a member or method name ("protocolVersion", "secrets/get",
// "agentRepo") into a Go exported name ("ProtocolVersion", "SecretsGet",
// "AgentRepo"), spelling initialisms in capitals.
func exported(name string) string {
	var b strings.Builder
	for _, word := range words(name) {
		if up, ok := initialisms[strings.ToLower(word)]; ok {
			b.WriteString(up)
			continue
		}
		r := []rune(word)
		r[0] = unicode.ToUpper(r[0])
		b.WriteString(string(r))
	}
	return b.String()
}

// words cuts a name at separators and at each lower-to-upper change.
func words(name string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = nil
		}
	}
	var prev rune
	for _, r := range name {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	flush()
	return out
}

// wrap cuts text into lines of at most width bytes, at spaces.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// lowerFirst lowers the first letter of a sentence so it can follow a
// name, unless it starts a word in capitals ("UTF-8", "JSON").
func lowerFirst(s string) string {
	r := []rune(s)
	if len(r) < 2 || !unicode.IsLower(r[1]) && r[1] != ' ' {
		return s
	}
	r[0] = unicode.ToLower(r[0])
	return string(r)
}
