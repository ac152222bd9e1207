package jsonrpc

import (
	"bytes"
	"encoding/json"
)

// The scanner below walks JSON that json.Valid has already accepted, so it
// only finds where values end; it never has to reject anything.

// isSpace reports JSON whitespace.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// skipSpace returns the index of the first non-space byte at or after i.
func skipSpace(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

// trimSpace strips JSON whitespace from both ends.
func trimSpace(data []byte) []byte {
	start := skipSpace(data, 0)
	end := len(data)
	for end > start && isSpace(data[end-1]) {
		end--
	}
	return data[start:end]
}

// stringEnd returns the index just past the string starting at data[i].
func stringEnd(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(data)
}

// valueEnd returns the index just past the value starting at data[i].
func valueEnd(data []byte, i int) int {
	switch data[i] {
	case '"':
		return stringEnd(data, i)
	case '{', '[':
		return compositeEnd(data, i)
	}
	for i < len(data) && !isSpace(data[i]) && data[i] != ',' && data[i] != ']' && data[i] != '}' {
		i++
	}
	return i
}

// compositeEnd returns the index just past the object or array at data[i].
func compositeEnd(data []byte, i int) int {
	depth := 0
	for i < len(data) {
		switch data[i] {
		case '"':
			i = stringEnd(data, i)
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
		i++
	}
	return len(data)
}

// arrayElements returns the raw elements of a valid JSON array.
func arrayElements(array []byte) [][]byte {
	var elems [][]byte
	i := skipSpace(array, 1)
	for i < len(array) && array[i] != ']' {
		end := valueEnd(array, i)
		elems = append(elems, array[i:end])
		i = skipSpace(array, end)
		if i < len(array) && array[i] == ',' {
			i = skipSpace(array, i+1)
		}
	}
	return elems
}

// scanObject walks the members of a valid JSON object. For each member it
// asks slot where to keep the value (nil: ignore the member). It reports
// false when a kept member appears twice.
func scanObject(object []byte, slot func(name []byte) *[]byte) bool {
	unique := true
	i := skipSpace(object, 1)
	for i < len(object) && object[i] == '"' {
		nameEnd := stringEnd(object, i)
		name := memberName(object[i:nameEnd])
		i = skipSpace(object, nameEnd)
		i = skipSpace(object, i+1) // past ':'
		end := valueEnd(object, i)
		if kept := slot(name); kept != nil {
			unique = unique && *kept == nil
			*kept = object[i:end]
		}
		i = skipSpace(object, end)
		if i < len(object) && object[i] == ',' {
			i = skipSpace(object, i+1)
		}
	}
	return unique
}

// memberName returns the unescaped name of a member from its quoted text,
// without copying when it holds no escape.
func memberName(quoted []byte) []byte {
	if bytes.IndexByte(quoted, '\\') < 0 {
		return quoted[1 : len(quoted)-1]
	}
	name, _ := unquote(quoted)
	return []byte(name)
}

// unquote returns the text of a JSON string value; ok is false when the
// value is not a string.
func unquote(value []byte) (text string, ok bool) {
	if len(value) < 2 || value[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(value, '\\') < 0 {
		return string(value[1 : len(value)-1]), true
	}
	err := json.Unmarshal(value, &text)
	return text, err == nil
}
