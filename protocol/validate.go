package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// What a FieldError is about: FieldError.In holds one of these.
const (
	InParams = "params"
	InResult = "result"
)

// ValidateParams checks params of a call or notification of method against
// the schema. It returns a *FieldError naming the field when they do not
// hold (the host answers -32602 with its text), and nil when they hold or
// when the schema does not know method (the caller answers -32601 then).
// Omitted params (empty, or null) are validated as an empty object.
func ValidateParams(method string, params json.RawMessage) error {
	t := table()
	e, ok := t.find(method)
	if !ok {
		return nil
	}
	s := mustShapes(t, e)
	if isAbsent(params) {
		params = json.RawMessage("{}")
	}
	return validate(s.params, InParams, params)
}

// mustShapes returns the embedded schema's shapes of e: its tests compile
// every one, so a failure is a broken build, as a schema that does not
// load is.
func mustShapes(t *registry, e *entry) shapes {
	s, err := t.shapesOf(e)
	if err != nil {
		panic(fmt.Sprintf("protocol: the embedded schema does not compile: %v", err))
	}
	return s
}

// isAbsent reports whether params were omitted. A null counts as omitted:
// JSON-RPC forbids it, but encoders write it for a nil value, and refusing
// it would fail a call that has nothing to say.
func isAbsent(params json.RawMessage) bool {
	trimmed := bytes.TrimSpace(params)
	return len(trimmed) == 0 || string(trimmed) == "null"
}

// ValidateResult checks the result of a call of method against the schema,
// as ValidateParams does for params. Notifications and unknown methods have
// no result schema: nil. An absent result is validated as null.
func ValidateResult(method string, result json.RawMessage) error {
	t := table()
	e, ok := t.find(method)
	if !ok || !e.hasResult {
		return nil
	}
	s := mustShapes(t, e)
	if len(bytes.TrimSpace(result)) == 0 {
		result = json.RawMessage("null")
	}
	return validate(s.result, InResult, result)
}

// validate decodes raw and checks it against s.
func validate(s *jsonschema.Schema, in string, raw json.RawMessage) error {
	value, err := decodeValue(raw)
	if err != nil {
		return &FieldError{In: in, Reason: reasonNotJSON}
	}
	err = s.Validate(value)
	var ve *jsonschema.ValidationError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ve):
		return newFieldError(in, ve)
	default:
		return &FieldError{In: in, Reason: err.Error()}
	}
}

// decodeValue decodes one JSON value, keeping numbers exact (json.Number) so
// a large integer is judged as written. Invalid UTF-8, which encoding/json
// would quietly replace, is refused as the wire layer refuses it.
func decodeValue(raw []byte) (any, error) {
	if !utf8.Valid(raw) {
		return nil, errInvalidUTF8
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(raw))
}

var errInvalidUTF8 = errors.New("invalid UTF-8")
