package jsonrpc

import (
	"encoding/binary"
	"unicode/utf8"
)

// maxDepth is how deep arrays and objects may nest, as in encoding/json.
const maxDepth = 10000

// validJSON reports whether data is exactly one JSON value (RFC 8259), with
// optional whitespace around it, in valid UTF-8. It is json.Valid and
// utf8.Valid in one pass, several times faster: every line goes through it.
func validJSON(data []byte) bool {
	v := validator{data: data}
	end, ok := v.value(skipSpace(data, 0), 0)
	return ok && skipSpace(data, end) == len(data)
}

// validator checks one JSON text by recursive descent. Each method takes
// the index where its part starts and returns the index just past it.
type validator struct {
	data []byte
}

// at returns the byte at i, or 0 past the end (0 is never valid there).
func (v *validator) at(i int) byte {
	if i < len(v.data) {
		return v.data[i]
	}
	return 0
}

func (v *validator) value(i, depth int) (int, bool) {
	switch c := v.at(i); {
	case c == '{':
		return v.object(i, depth+1)
	case c == '[':
		return v.array(i, depth+1)
	case c == '"':
		return v.string(i)
	case c == '-' || isDigit(c):
		return v.number(i)
	case c == 't':
		return v.literal(i, "true")
	case c == 'f':
		return v.literal(i, "false")
	case c == 'n':
		return v.literal(i, "null")
	}
	return i, false
}

func (v *validator) object(i, depth int) (int, bool) {
	if depth > maxDepth {
		return i, false
	}
	i = skipSpace(v.data, i+1)
	if v.at(i) == '}' {
		return i + 1, true
	}
	for {
		if v.at(i) != '"' {
			return i, false
		}
		var ok bool
		i, ok = v.string(i)
		if i = skipSpace(v.data, i); !ok || v.at(i) != ':' {
			return i, false
		}
		if i, ok = v.value(skipSpace(v.data, i+1), depth); !ok {
			return i, false
		}
		switch i = skipSpace(v.data, i); v.at(i) {
		case ',':
			i = skipSpace(v.data, i+1)
		case '}':
			return i + 1, true
		default:
			return i, false
		}
	}
}

func (v *validator) array(i, depth int) (int, bool) {
	if depth > maxDepth {
		return i, false
	}
	i = skipSpace(v.data, i+1)
	if v.at(i) == ']' {
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = v.value(i, depth); !ok {
			return i, false
		}
		switch i = skipSpace(v.data, i); v.at(i) {
		case ',':
			i = skipSpace(v.data, i+1)
		case ']':
			return i + 1, true
		default:
			return i, false
		}
	}
}

func (v *validator) string(i int) (int, bool) {
	for i++; i < len(v.data); {
		if i = skipPlain(v.data, i); i >= len(v.data) {
			break
		}
		switch c := v.data[i]; {
		case c == '"':
			return i + 1, true
		case c == '\\':
			end, ok := v.escape(i)
			if !ok {
				return i, false
			}
			i = end
		case c < 0x20:
			return i, false
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(v.data[i:])
			if r == utf8.RuneError && size == 1 {
				return i, false
			}
			i += size
		}
	}
	return i, false
}

// escape checks the escape sequence at data[i], a backslash.
func (v *validator) escape(i int) (int, bool) {
	switch v.at(i + 1) {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return i + 2, true
	case 'u':
		for k := i + 2; k < i+6; k++ {
			if !isHex(v.at(k)) {
				return k, false
			}
		}
		return i + 6, true
	}
	return i, false
}

func (v *validator) number(i int) (int, bool) {
	if v.at(i) == '-' {
		i++
	}
	switch c := v.at(i); {
	case c == '0':
		i++
	case isDigit(c):
		i = v.digits(i)
	default:
		return i, false
	}
	if v.at(i) == '.' {
		if !isDigit(v.at(i + 1)) {
			return i, false
		}
		i = v.digits(i + 1)
	}
	if c := v.at(i); c == 'e' || c == 'E' {
		i++
		if c := v.at(i); c == '+' || c == '-' {
			i++
		}
		if !isDigit(v.at(i)) {
			return i, false
		}
		i = v.digits(i)
	}
	return i, true
}

// digits returns the index past the run of digits starting at i.
func (v *validator) digits(i int) int {
	for isDigit(v.at(i)) {
		i++
	}
	return i
}

func (v *validator) literal(i int, word string) (int, bool) {
	end := i + len(word)
	if end > len(v.data) || string(v.data[i:end]) != word {
		return i, false
	}
	return end, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// Eight copies of a byte, for the word-at-a-time tests of skipPlain.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// skipPlain returns the index of the first byte at or after i, within a
// whole eight-byte word, that a string scan must look at: a quote, a
// backslash, a control character or a byte past ASCII. Long strings
// (a file's text) are mostly plain, and go eight bytes at a time.
func skipPlain(data []byte, i int) int {
	for i+8 <= len(data) {
		w := binary.LittleEndian.Uint64(data[i:])
		quote, backslash := w^(ones*'"'), w^(ones*'\\')
		control := (w - ones*0x20) &^ w
		quotes := (quote - ones) &^ quote
		backslashes := (backslash - ones) &^ backslash
		if (control|quotes|backslashes|w)&highs != 0 {
			return i
		}
		i += 8
	}
	return i
}
