package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"reflect"
	"strings"

	"github.com/escouade-dev/escouade-plugin/internal/closest"
)

// flagProblem words a flag package error for a person: what was expected,
// never the parser's "parse error", and the flag a typo stands for.
func flagProblem(set *flag.FlagSet, err error) string {
	msg := err.Error()
	help := fmt.Sprintf("escouade-plugin help %s lists its flags", set.Name())
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		name = strings.TrimLeft(name, "-")
		if near := closest.Match(name, flagNames(set)); near != "" {
			return fmt.Sprintf("unknown flag -%s: did you mean %s? (%s)", name, dashed(near), help)
		}
		if inOtherCommands(name) {
			return fmt.Sprintf("%s takes no flag --%s (%s)", set.Name(), name, help)
		}
		return fmt.Sprintf("unknown flag -%s (%s)", name, help)
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		name = dashed(strings.TrimLeft(name, "-"))
		return fmt.Sprintf("%s needs a value: %s VALUE (%s)", name, name, help)
	}
	var value, name string
	if n, _ := fmt.Sscanf(msg, "invalid value %q for flag -%s", &value, &name); n == 2 {
		name = strings.TrimSuffix(name, ":")
		return fmt.Sprintf("%s %q: %s", dashed(name), value, flagWants(set, name, msg))
	}
	if n, _ := fmt.Sscanf(msg, "invalid boolean value %q for -%s", &value, &name); n == 2 {
		name = strings.TrimSuffix(name, ":")
		return fmt.Sprintf("%s=%s: want true or false (or %s alone for true)", dashed(name), value, dashed(name))
	}
	return msg
}

// dashed writes a flag as the docs do: -n, --home.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// flagWants says what a flag takes, from its own error when it has one
// of ours, else from its type.
func flagWants(set *flag.FlagSet, name, msg string) string {
	if _, own, ok := strings.Cut(msg, ": "); ok && !strings.Contains(own, "parse error") &&
		!strings.Contains(own, "out of range") && !strings.Contains(own, "strconv.") {
		if _, after, ok := strings.Cut(own, ": "); ok {
			return after
		}
		return own
	}
	f := set.Lookup(name)
	if f == nil {
		return "not a value it takes"
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return "not a value it takes"
	}
	switch g.Get().(type) {
	case int, int64, uint, uint64:
		return "want a whole number"
	case float64:
		return "want a number"
	}
	return "not a value it takes"
}

func flagNames(set *flag.FlagSet) []string {
	var names []string
	set.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
}

// inOtherCommands reports a flag some command has, so that a flag given
// to the wrong command is told apart from a typo.
func inOtherCommands(name string) bool {
	var c common
	all := flag.NewFlagSet("", flag.ContinueOnError)
	c.register(all)
	return all.Lookup(name) != nil
}

// fileProblem says why a file named on the command line could not be
// read, without Go's wording of the system call.
func fileProblem(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no such file"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// decodeObject reads a JSON object, or says what the text holds instead,
// with the line and column of a syntax error.
func decodeObject(data []byte) (map[string]json.RawMessage, string) {
	var v json.RawMessage
	dec := json.NewDecoder(strings.NewReader(string(data)))
	if err := dec.Decode(&v); err != nil {
		return nil, jsonProblem(data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		line, col := lineColumn(data, int(dec.InputOffset()))
		return nil, fmt.Sprintf("more data after the JSON value (line %d, column %d)", line, col)
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(v, &m) != nil || m == nil {
		return nil, fmt.Sprintf("holds %s, not a JSON object", jsonKindOf(v))
	}
	return m, ""
}

// jsonProblem words a decoder error: where, and what.
func jsonProblem(data []byte, err error) string {
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn):
		line, col := lineColumn(data, int(syn.Offset)-1)
		return fmt.Sprintf("not JSON at line %d, column %d: %s", line, col, syn.Error())
	case errors.Is(err, io.EOF) && len(strings.TrimSpace(string(data))) == 0:
		return "the file is empty"
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "not JSON: it ends before the value is complete"
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return fmt.Sprintf("holds %s where %s was expected", article(typ.Value), goKind(typ.Type))
	}
	return "not JSON"
}

func lineColumn(data []byte, off int) (int, int) {
	off = min(max(off, 0), len(data))
	before := string(data[:off])
	return strings.Count(before, "\n") + 1, len([]rune(before[strings.LastIndexByte(before, '\n')+1:])) + 1
}

// jsonKindOf names the JSON type of a value.
func jsonKindOf(v json.RawMessage) string {
	t := strings.TrimSpace(string(v))
	if t == "" {
		return "nothing"
	}
	switch t[0] {
	case '"':
		return "a string"
	case '[':
		return "an array"
	case '{':
		return "an object"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func article(jsonType string) string {
	switch jsonType {
	case "array", "object":
		return "an " + jsonType
	case "null":
		return "null"
	}
	return "a " + jsonType
}

// goKind names what a Go type reads from JSON, as a person says it.
func goKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint, reflect.Uint64, reflect.Float64:
		return "a number"
	}
	return "another value"
}
