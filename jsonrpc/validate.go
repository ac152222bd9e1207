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

// layout is where the messages of a line are, found while validating it,
// so that decoding does not scan the line a second time.
type layout struct {
	// elems are the elements of a top-level array, or the one top-level
	// value; an element that is an object has its members in
	// members[from:to], any other has from = to = -1.
	elems   []element
	members []memberSpan
}

// element is one message-level value of a line.
type element struct{ start, end, from, to int }

// memberSpan is one member of a message-level object: its quoted name
// and its raw value, as indexes in the line.
type memberSpan struct{ nameStart, nameEnd, valueStart, valueEnd int }

// validLayout is validJSON that also fills lay with where the messages
// and their members are, for data holding no space at either end.
func validLayout(data []byte, lay *layout) bool {
	v := validator{data: data, lay: lay, msgDepth: 1}
	if len(data) > 0 && data[0] == '[' {
		v.msgDepth = 2
	}
	end, ok := v.value(0, 0)
	if !ok || end != len(data) {
		return false
	}
	if v.msgDepth == 1 {
		lay.elems = append(lay.elems, v.element(0, end))
	}
	return true
}

// validator checks one JSON text by recursive descent. Each method takes
// the index where its part starts and returns the index just past it.
// With a layout it records the message-level values and their members.
type validator struct {
	data     []byte
	lay      *layout
	msgDepth int // the depth of message objects: 1 alone, 2 in a batch
	// from and to are the members of the last message object closed.
	from, to int
}

// element is the layout entry of the value data[start:end].
func (v *validator) element(start, end int) element {
	if v.data[start] == '{' {
		return element{start, end, v.from, v.to}
	}
	return element{start, end, -1, -1}
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
	record := v.lay != nil && depth == v.msgDepth
	from := 0
	if record {
		from = len(v.lay.members)
	}
	i = skipSpace(v.data, i+1)
	if v.at(i) == '}' {
		v.from, v.to = from, from
		return i + 1, true
	}
	for {
		if v.at(i) != '"' {
			return i, false
		}
		nameStart := i
		var ok bool
		i, ok = v.string(i)
		nameEnd := i
		if i = skipSpace(v.data, i); !ok || v.at(i) != ':' {
			return i, false
		}
		valueStart := skipSpace(v.data, i+1)
		if i, ok = v.value(valueStart, depth); !ok {
			return i, false
		}
		if record {
			v.lay.members = append(v.lay.members, memberSpan{nameStart, nameEnd, valueStart, i})
		}
		switch i = skipSpace(v.data, i); v.at(i) {
		case ',':
			i = skipSpace(v.data, i+1)
		case '}':
			if record {
				v.from, v.to = from, len(v.lay.members)
			}
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
	record := v.lay != nil && depth == 1 && v.msgDepth == 2
	for {
		start := i
		var ok bool
		if i, ok = v.value(i, depth); !ok {
			return i, false
		}
		if record {
			v.lay.elems = append(v.lay.elems, v.element(start, i))
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
	start := i
	for i++; i < len(v.data); {
		if i-start > longString { // most strings are short: words, not text
			if i = skipPlain(v.data, i); i >= len(v.data) {
				break
			}
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

// longString is where a string scan starts going eight bytes at a time.
const longString = 24

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
