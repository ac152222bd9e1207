package services

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/big"
)

// decodeJSON decodes one JSON value, keeping numbers as json.Number so an
// integer past 2^53 keeps its exact text in the answer.
func decodeJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing data after the value")
	}
	return v, nil
}

// toJSON turns a value decoded from YAML into the shapes decodeJSON gives,
// so one set of rules judges values from both sources. NaN, infinities and
// maps with non-string keys have no JSON form and fail.
func toJSON(v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return decodeJSON(raw)
}

// sameJSON reports whether two decoded JSON values are equal as JSON:
// numbers by value (1, 1.0 and 1e0 are the same), objects by members.
func sameJSON(a, b any) bool {
	switch a := a.(type) {
	case json.Number:
		b, ok := b.(json.Number)
		return ok && sameNumber(a, b)
	case []any:
		b, ok := b.([]any)
		return ok && sameArray(a, b)
	case map[string]any:
		b, ok := b.(map[string]any)
		return ok && sameObject(a, b)
	case string, bool, nil:
		return a == b
	}
	return false
}

// numberPrecision is the mantissa size, in bits, numbers are compared at:
// exact for every float64 and integer a setting holds in practice, while a
// big.Float (unlike a big.Rat) keeps 1e999999999 cheap to parse.
const numberPrecision = 512

func parseNumber(n json.Number) (*big.Float, bool) {
	f, _, err := big.ParseFloat(n.String(), 10, numberPrecision, big.ToNearestEven)
	return f, err == nil
}

func sameNumber(a, b json.Number) bool {
	x, okA := parseNumber(a)
	y, okB := parseNumber(b)
	if !okA || !okB {
		return a == b
	}
	return x.Cmp(y) == 0
}

func sameArray(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameJSON(a[i], b[i]) {
			return false
		}
	}
	return true
}

func sameObject(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, va := range a {
		vb, ok := b[k]
		if !ok || !sameJSON(va, vb) {
			return false
		}
	}
	return true
}

// isInteger reports whether n has an integral value (3 and 3.0 do; 3.5
// does not), as JSON Schema's "integer" judges it.
func isInteger(n json.Number) bool {
	f, ok := parseNumber(n)
	return ok && f.IsInt()
}

// valueKind names the JSON kind of a decoded value, for journal lines that
// must not print the value itself.
func valueKind(v any) string {
	switch v := v.(type) {
	case string:
		return "a string"
	case json.Number:
		if isInteger(v) {
			return "an integer"
		}
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "not a JSON value"
}
