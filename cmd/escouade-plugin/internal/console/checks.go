package console

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf16"
)

// errNotUTF8 refuses a command line that is not UTF-8: JSON text is, and
// a decoder would silently turn the bad bytes into U+FFFD, so that an id
// would be answered as another id.
var errNotUTF8 = errors.New("the line is not valid UTF-8")

// checkAttachParams refuses attach params that are not an object: the
// host adds "agent" to them. Every other op sends params of any JSON value
// as given, as the protocol's own example sends "params": 1
// (docs/protocol.md#3-messages).
func checkAttachParams(raw json.RawMessage) error {
	v := bytes.TrimSpace(raw)
	if absent(v) || v[0] == '{' {
		return nil
	}
	return fmt.Errorf("%q must be an object, not %s", "params", jsonKind(v))
}

func jsonKind(v []byte) string {
	switch v[0] {
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case '[':
		return "an array"
	}
	return "a number"
}

// checkIDs refuses an id (or agent, or batch id) that decoding would have
// changed: a \u escape of a lone surrogate decodes to U+FFFD, and the
// answer would carry another id than the one asked.
func checkIDs(line []byte) error {
	var fields map[string]json.RawMessage
	if json.Unmarshal(line, &fields) != nil {
		return nil // the command decoder says what is wrong
	}
	for _, name := range []string{"id", "agent"} {
		if raw, ok := fields[name]; ok && hasLoneSurrogate(raw) {
			return fmt.Errorf("%q holds a lone surrogate (\\u escape), which is no character: it could not be answered as sent", name)
		}
	}
	return nil
}

// hasLoneSurrogate reports a JSON string whose \u escapes name half of a
// surrogate pair without the other half.
func hasLoneSurrogate(raw []byte) bool {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		if i+1 < len(raw) && raw[i+1] != 'u' {
			i++ // \" \\ and the other short escapes
			continue
		}
		r, ok := escapedUnit(raw[i:])
		if !ok {
			continue
		}
		switch {
		case utf16.IsSurrogate(r) && r < 0xDC00:
			lo, ok := escapedUnit(raw[i+6:])
			if !ok || lo < 0xDC00 || lo > 0xDFFF {
				return true
			}
			i += 11
		case utf16.IsSurrogate(r):
			return true
		default:
			i += 5
		}
	}
	return false
}

// escapedUnit reads "\uXXXX" at the start of b.
func escapedUnit(b []byte) (rune, bool) {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range b[2:6] {
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}
