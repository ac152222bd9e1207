package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// errInvalidRaw reports a json.RawMessage that is not valid JSON, which the
// connection refuses to send rather than break the peer's framing.
var errInvalidRaw = errors.New("jsonrpc: json.RawMessage is not valid JSON")

// marshalValue turns params or a result into raw JSON on one line. A
// json.RawMessage goes through as is once checked; anything else goes
// through encoding/json, whose output never holds a raw line break.
func marshalValue(v any) (json.RawMessage, error) {
	switch raw := v.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		if len(raw) == 0 {
			return nil, nil
		}
		if !validJSON(raw) {
			return nil, errInvalidRaw
		}
		return raw, nil
	default:
		return json.Marshal(v)
	}
}

// appendRaw appends a raw JSON value, compacted when it spans lines so that
// a message always stays on one line.
func appendRaw(buf []byte, raw json.RawMessage) ([]byte, error) {
	if bytes.IndexAny(raw, "\r\n") < 0 {
		return append(buf, raw...), nil
	}
	out := bytes.NewBuffer(buf)
	if err := json.Compact(out, raw); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// hexDigits spell the \u00XX escapes of control characters.
const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD,
// as encoding/json does; other text is kept as is, HTML characters
// included, since the line is not HTML.
func appendString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			buf = appendASCII(buf, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, `\ufffd`...)
		} else {
			buf = append(buf, s[i:i+size]...)
		}
		i += size
	}
	return append(buf, '"')
}

// appendASCII appends one ASCII byte of a JSON string, escaped if needed.
func appendASCII(buf []byte, c byte) []byte {
	switch {
	case c == '"' || c == '\\':
		return append(buf, '\\', c)
	case c == '\n':
		return append(buf, `\n`...)
	case c == '\r':
		return append(buf, `\r`...)
	case c == '\t':
		return append(buf, `\t`...)
	case c < 0x20:
		return append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
	default:
		return append(buf, c)
	}
}
