package jsonrpc

import (
	"bytes"
	"encoding/json"
	"unsafe"
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

// stringEnd returns the index just past the string starting at data[i]:
// the first quote not escaped by an odd run of backslashes.
func stringEnd(data []byte, i int) int {
	for j := i + 1; j < len(data); {
		k := bytes.IndexByte(data[j:], '"')
		if k < 0 {
			break
		}
		quote := j + k
		backslashes := 0
		for p := quote - 1; p > i && data[p] == '\\'; p-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return quote + 1
		}
		j = quote + 1
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

// members walks the members of a valid JSON object, one per next call.
type members struct {
	object []byte
	i      int
}

func newMembers(object []byte) members {
	return members{object: object, i: skipSpace(object, 1)}
}

// next returns the next member's unescaped name and raw value; ok is false
// past the last one.
func (s *members) next() (name, value []byte, ok bool) {
	if s.i >= len(s.object) || s.object[s.i] != '"' {
		return nil, nil, false
	}
	nameEnd := stringEnd(s.object, s.i)
	name = memberName(s.object[s.i:nameEnd])
	start := skipSpace(s.object, skipSpace(s.object, nameEnd)+1) // past ':'
	end := valueEnd(s.object, start)
	s.i = skipSpace(s.object, end)
	if s.i < len(s.object) && s.object[s.i] == ',' {
		s.i = skipSpace(s.object, s.i+1)
	}
	return name, s.object[start:end], true
}

// keep stores a member's value in slot and reports false when the slot was
// already taken: the member appears twice.
func keep(slot *[]byte, value []byte) bool {
	first := *slot == nil
	*slot = value
	return first
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
// value is not a string. A string without escapes is not copied: value
// must never change afterwards, as the decoder's private copy of a line
// never does.
func unquote(value []byte) (text string, ok bool) {
	if len(value) < 2 || value[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(value, '\\') < 0 {
		return frozen(value[1 : len(value)-1]), true
	}
	err := json.Unmarshal(value, &text)
	return text, err == nil
}

// frozen returns the bytes as a string without copying them. The decoder
// uses it on its private copy of a line, which nothing writes after it is
// made: ids and method names then cost no allocation of their own.
func frozen(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
