package services

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
)

// object is a params object by member name, decoded one level deep so each
// member can be checked and named in the refusal.
type object map[string]json.RawMessage

// decodeObject reads params that must be a JSON object. Absent or null
// params read as an empty object; members not in known are refused, so a
// typo never passes silently.
func decodeObject(params json.RawMessage, known ...string) (object, *Error) {
	trimmed := bytes.TrimSpace(params)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return object{}, nil
	}
	if trimmed[0] != '{' {
		return nil, invalidParams("params must be an object, not %s", jsonKind(trimmed))
	}
	var obj object
	if err := json.Unmarshal(trimmed, &obj); err != nil {
		return nil, invalidParams("params is not a valid JSON object")
	}
	for _, name := range sortedKeys(obj) {
		if !slices.Contains(known, name) {
			return nil, invalidParams("params.%s is not a known field", name)
		}
	}
	return obj, nil
}

// stringField reads the member name as a string. present is false when the
// member is absent; a member of another type (null included) is refused.
func (o object) stringField(name string) (value string, present bool, err *Error) {
	raw, ok := o[name]
	if !ok {
		return "", false, nil
	}
	// Unmarshal leaves a string alone on null, so null is refused by hand.
	if e := json.Unmarshal(raw, &value); e != nil || jsonKind(raw) == "null" {
		return "", true, invalidParams("params.%s must be a string, not %s", name, jsonKind(raw))
	}
	return value, true, nil
}

// requiredString reads the member name, which must be present and a string.
func (o object) requiredString(name string) (string, *Error) {
	value, present, err := o.stringField(name)
	if err != nil {
		return "", err
	}
	if !present {
		return "", invalidParams("params.%s is required", name)
	}
	return value, nil
}

// jsonKind names the kind of a JSON value by its first byte, for refusals.
func jsonKind(raw json.RawMessage) string {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 {
		return "nothing"
	}
	switch trimmed[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// DecodeParams reads params into v, refusing unknown members and trailing
// data; absent or null params read as {}. The host checks params against
// the schema too: this keeps a service safe on its own.
func DecodeParams(params json.RawMessage, v any) *Error {
	trimmed := bytes.TrimSpace(params)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		trimmed = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return InvalidParams("params do not hold: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return InvalidParams("params do not hold: trailing data")
	}
	return nil
}

// InvalidParams is the -32602 refusal, its reason made of format and args.
func InvalidParams(format string, args ...any) *Error { return invalidParams(format, args...) }
