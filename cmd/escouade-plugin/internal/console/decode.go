package console

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// DescribeJSONError words an error of encoding/json for the person who
// typed the line: the field and the type it wants, or where the JSON
// breaks, never a Go type.
func DescribeJSONError(err error) string {
	var typ *json.UnmarshalTypeError
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			return fmt.Sprintf("want %s, not %s", kindOfType(typ.Type), article(typ.Value))
		}
		return fmt.Sprintf("%q must be %s, not %s", field, kindOfType(typ.Type), article(typ.Value))
	case errors.As(err, &syn):
		return fmt.Sprintf("not JSON (at byte %d): %s", syn.Offset, syn.Error())
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "not JSON: the line ends before the value is complete"
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if strings.Contains(msg, "Go ") {
		return "not a JSON object of the expected shape"
	}
	return msg
}

func article(jsonType string) string {
	switch jsonType {
	case "array", "object":
		return "an " + jsonType
	case "null":
		return "null"
	}
	if strings.HasPrefix(jsonType, "number") {
		return "a number"
	}
	return "a " + jsonType
}

// kindOfType names what a Go type reads from JSON.
func kindOfType(t reflect.Type) string {
	if t == nil {
		return "another value"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && t.Name() == "RawMessage" {
			return "a JSON value"
		}
		if t.Elem().Kind() == reflect.String {
			return "an array of strings"
		}
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Pointer:
		return kindOfType(t.Elem())
	}
	return "another value"
}
