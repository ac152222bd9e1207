package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// versionExcerpt bounds how much of a wrong protocolVersion a refusal
// quotes.
const versionExcerpt = 40

// VersionProblem says why a plugin's answer to initialize is refused, or ""
// when it speaks this version (docs/protocol.md#4-the-handshake). The host stops the plugin with
// this reason and the bench fails its initialize row with it. A version
// that is not a number is named with its JSON type, so that "1" (a string)
// never reads as the 1 it is not.
func VersionProblem(result json.RawMessage) string {
	var members map[string]json.RawMessage
	if json.Unmarshal(result, &members) != nil {
		return "its answer to initialize has no protocol version"
	}
	v, ok := members["protocolVersion"]
	if !ok || string(v) == "null" {
		return "its answer to initialize has no protocol version"
	}
	if string(v) == fmt.Sprint(Version) {
		return ""
	}
	if !isNumber(v) {
		// The value is quoted as JSON: "1" shows it is a string.
		return fmt.Sprintf("its answer to initialize has no protocol version (protocolVersion is %s, not a number)", cut(v))
	}
	var n int64
	if json.Unmarshal(v, &n) != nil {
		return fmt.Sprintf("its answer to initialize has no protocol version (protocolVersion is %s, not an integer)", cut(v))
	}
	return fmt.Sprintf("it speaks version %d of the protocol; this Escouade speaks version %d", n, Version)
}

// isNumber reports whether a JSON value is a number.
func isNumber(v json.RawMessage) bool {
	t := bytes.TrimSpace(v)
	return len(t) > 0 && (t[0] == '-' || t[0] >= '0' && t[0] <= '9')
}

// cut quotes a value whole when short, else its start, never inside a
// character.
func cut(v []byte) string {
	if len(v) <= versionExcerpt {
		return string(v)
	}
	n := versionExcerpt
	for n > 0 && !utf8.RuneStart(v[n]) {
		n--
	}
	return string(v[:n]) + "…"
}
