package manifest

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// decodeExact decodes the JSON object data into fields, a pointer to a
// struct type without JSON methods of its own, and returns the members that
// fields has no exact name for.
//
// encoding/json matches member names case-insensitively, so "ACP" would fill
// the acp field; the manifest's names are case-sensitive, so the members are
// split by exact name first and only the known ones reach fields.
func decodeExact(data []byte, fields any) (unknown map[string]json.RawMessage, err error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		return nil, err
	}
	known := make(map[string]json.RawMessage, len(members))
	for _, name := range jsonNames(reflect.TypeOf(fields).Elem()) {
		if raw, ok := members[name]; ok {
			known[name] = raw
			delete(members, name)
		}
	}
	exact, err := json.Marshal(known)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(exact, fields); err != nil {
		return nil, err
	}
	if len(members) == 0 {
		return nil, nil
	}
	return members, nil
}

// encodeWithExtra marshals fields (a struct without JSON methods of its own)
// and appends the extra members its fields do not already write, sorted by
// name so the output is stable.
func encodeWithExtra(fields any, extra map[string]json.RawMessage) ([]byte, error) {
	b, err := json.Marshal(fields)
	if err != nil || len(extra) == 0 {
		return b, err
	}
	taken := jsonNames(reflect.TypeOf(fields))
	out := bytes.NewBuffer(b[:len(b)-1]) // everything but the closing brace
	for _, name := range slices.Sorted(maps.Keys(extra)) {
		if slices.Contains(taken, name) {
			continue
		}
		if out.Len() > 1 {
			out.WriteByte(',')
		}
		key, _ := json.Marshal(name) // marshalling a string cannot fail
		out.Write(key)
		out.WriteByte(':')
		if err := json.Compact(out, extra[name]); err != nil {
			return nil, err
		}
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}

// jsonNames lists the member names encoding/json uses for the fields of the
// struct type t.
func jsonNames(t reflect.Type) []string {
	var names []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-" || !f.IsExported():
			continue
		case name == "":
			name = f.Name
		}
		names = append(names, name)
	}
	return names
}
