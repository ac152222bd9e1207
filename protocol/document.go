package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// document holds the members of the schema this package reads besides the
// JSON Schema shapes themselves.
type document struct {
	ID             string                     `json:"$id"`
	Version        int                        `json:"x-protocolVersion"`
	DefaultDelayMs int64                      `json:"x-defaultDelayMs"`
	Errors         map[string]string          `json:"x-errors"`
	Methods        map[string]json.RawMessage `json:"x-methods"`
}

// methodSpec is one entry of x-methods as written in the schema.
type methodSpec struct {
	Description  string          `json:"description"`
	Direction    Direction       `json:"direction"`
	Notification bool            `json:"notification"`
	WASMOnly     bool            `json:"wasmOnly"`
	DelayMs      *int64          `json:"delayMs"`
	Params       json.RawMessage `json:"params"`
	Result       json.RawMessage `json:"result"`
	Errors       []int           `json:"errors"`
}

// parsedDocument is the document with its method entries decoded and checked.
type parsedDocument struct {
	ID             string
	DefaultDelayMs int64
	Methods        map[string]methodSpec
}

// parseDocument decodes the schema's own members and checks that the method
// table is coherent, so a mistake in the file fails loudly at load.
func parseDocument(raw []byte) (*parsedDocument, error) {
	var doc document
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	if err := doc.check(); err != nil {
		return nil, err
	}
	out := &parsedDocument{ID: doc.ID, DefaultDelayMs: doc.DefaultDelayMs, Methods: map[string]methodSpec{}}
	for name, rawSpec := range doc.Methods {
		spec, err := decodeSpec(rawSpec)
		if err == nil {
			err = spec.check(name, doc.Errors)
		}
		if err != nil {
			return nil, fmt.Errorf("x-methods/%s: %w", name, err)
		}
		out.Methods[name] = spec
	}
	return out, nil
}

func (d *document) check() error {
	switch {
	case d.ID == "":
		return errors.New("$id is missing")
	case d.Version != Version:
		return fmt.Errorf("x-protocolVersion is %d, want %d", d.Version, Version)
	case d.DefaultDelayMs <= 0:
		return errors.New("x-defaultDelayMs must be a positive number of milliseconds")
	case len(d.Methods) == 0:
		return errors.New("x-methods is empty")
	}
	for code := range d.Errors {
		if _, err := strconv.Atoi(code); err != nil {
			return fmt.Errorf("x-errors: %q is not an error code", code)
		}
	}
	return nil
}

// isSpecMember reports whether name is a member a method entry may hold,
// spelt exactly.
func isSpecMember(name string) bool {
	switch name {
	case "description", "direction", "notification", "wasmOnly", "delayMs", "params", "result", "errors":
		return true
	}
	return false
}

// decodeSpec decodes an entry strictly: a misspelt member is an error, not a
// silently missing flag. encoding/json matches names regardless of case, so
// the names are checked first.
func decodeSpec(raw json.RawMessage) (methodSpec, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		return methodSpec{}, err
	}
	for name := range members {
		if !isSpecMember(name) {
			return methodSpec{}, fmt.Errorf("unknown member %q", name)
		}
	}
	var spec methodSpec
	err := json.Unmarshal(raw, &spec)
	return spec, err
}

func (s methodSpec) check(name string, known map[string]string) error {
	if err := checkName(name); err != nil {
		return err
	}
	if err := s.checkShape(); err != nil {
		return err
	}
	for _, code := range s.Errors {
		if _, ok := known[strconv.Itoa(code)]; !ok {
			return fmt.Errorf("error %d is not described in x-errors", code)
		}
	}
	return nil
}

// checkName accepts a method name, or a prefix pattern with "*" only as its
// last segment. Segments hold letters, digits, "." "_" and "-" only, so a
// name is also a plain JSON pointer token and URL fragment.
func checkName(name string) error {
	base := strings.TrimSuffix(name, patternSuffix)
	if base == "" || strings.Contains(base, "*") {
		return errors.New("a name may hold * only as a last segment /*")
	}
	for segment := range strings.SplitSeq(base, "/") {
		if segment == "" || strings.TrimLeft(segment, nameChars) != "" {
			return fmt.Errorf("segment %q is empty or holds other than letters, digits, '.', '_' and '-'", segment)
		}
	}
	return nil
}

// nameChars are the characters of a segment of a method name.
const nameChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"

func (s methodSpec) checkShape() error {
	isCall := s.Direction == DirHostToPlugin && !s.Notification
	switch {
	case s.Direction != DirHostToPlugin && s.Direction != DirPluginToHost:
		return fmt.Errorf("direction %q is neither %q nor %q", s.Direction, DirHostToPlugin, DirPluginToHost)
	case s.Params == nil:
		return errors.New("params is missing")
	case s.Notification && s.Result != nil:
		return errors.New("a notification has no result")
	case !s.Notification && s.Result == nil:
		return errors.New("result is missing")
	case isCall && (s.DelayMs == nil || *s.DelayMs <= 0):
		return errors.New("a host-to-plugin call needs a positive delayMs")
	case !isCall && s.DelayMs != nil:
		return errors.New("delayMs is only for host-to-plugin calls")
	}
	return nil
}

// method is the public view of the entry called name.
func (s methodSpec) method(name string) Method {
	m := Method{
		Name:         name,
		Direction:    s.Direction,
		Notification: s.Notification,
		WASMOnly:     s.WASMOnly,
		Errors:       s.Errors,
	}
	if s.DelayMs != nil {
		m.Delay = millis(*s.DelayMs)
	}
	return m
}

func millis(ms int64) time.Duration {
	return time.Duration(ms) * time.Millisecond
}
