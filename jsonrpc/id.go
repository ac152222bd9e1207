package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
)

// ID is a request id kept as its exact JSON text: a number such as
// 9007199254740993 or a string such as "a\"b", quotes included. The zero ID
// means no id (a notification, or null in an error answer).
type ID struct {
	raw string
}

// nullJSON is how the zero ID is written.
const nullJSON = "null"

// errBadID reports an id that is neither a JSON number nor a string.
var errBadID = errors.New("jsonrpc: an id must be a number or a string")

// Int64ID returns the integer id n.
func Int64ID(n int64) ID {
	return ID{raw: strconv.FormatInt(n, 10)}
}

// StringID returns the string id s, quoted and escaped as JSON.
func StringID(s string) ID {
	quoted, _ := json.Marshal(s) // a string always marshals
	return ID{raw: string(quoted)}
}

// IsZero reports whether the id is absent (or null).
func (id ID) IsZero() bool { return id.raw == "" }

// Raw returns the exact JSON text of the id, or null for the zero ID.
func (id ID) Raw() json.RawMessage {
	if id.raw == "" {
		return json.RawMessage(nullJSON)
	}
	return json.RawMessage(id.raw)
}

// String returns the exact JSON text of the id, suitable for logs and map
// keys; it is "null" for the zero ID.
func (id ID) String() string {
	if id.raw == "" {
		return nullJSON
	}
	return id.raw
}

// MarshalJSON writes the exact text of the id, or null.
func (id ID) MarshalJSON() ([]byte, error) {
	return id.Raw(), nil
}

// UnmarshalJSON keeps the exact text of a JSON number or string; null gives
// the zero ID; anything else is an error.
func (id *ID) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if string(data) == nullJSON {
		*id = ID{}
		return nil
	}
	if !isIDToken(data) || !json.Valid(data) {
		return errBadID
	}
	*id = ID{raw: string(data)}
	return nil
}

// isIDToken reports whether a valid JSON value is a number or a string, the
// only id kinds JSON-RPC allows.
func isIDToken(value []byte) bool {
	if len(value) == 0 {
		return false
	}
	c := value[0]
	return c == '"' || c == '-' || (c >= '0' && c <= '9')
}

// int64Value returns the id as an int64 when its text is a plain integer,
// the only form the connection's own ids take.
func (id ID) int64Value() (int64, bool) {
	if id.raw == "" || id.raw[0] == '"' {
		return 0, false
	}
	n, err := strconv.ParseInt(id.raw, 10, 64)
	return n, err == nil
}
