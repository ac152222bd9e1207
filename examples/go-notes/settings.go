package main

import "strings"

// stringSetting returns the string value of key, or def when the user left
// it at its default (settings/get then omits it) or it is not a string.
func stringSetting(settings map[string]any, key, def string) string {
	if s, ok := settings[key].(string); ok {
		return s
	}
	return def
}

// boolSetting returns the boolean value of key, or def.
func boolSetting(settings map[string]any, key string, def bool) bool {
	if b, ok := settings[key].(bool); ok {
		return b
	}
	return def
}

// countLines counts the lines of text; a last line needs no newline.
func countLines(text string) int {
	n := strings.Count(text, "\n")
	if text != "" && !strings.HasSuffix(text, "\n") {
		n++
	}
	return n
}
