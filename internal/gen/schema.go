package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// document is the part of the protocol schema the generator reads, in the
// order it is written, so the output follows the schema.
type document struct {
	Title   string
	Defs    []named // $defs
	Methods []method
	Codes   []constant // x-codes: the error codes by name
	// Messages is x-messages: the wire errors' messages by name.
	Messages []constant
	Env      []constant // x-environment: the program's environment, by name
	Limits   []limit    // x-limits: the protocol's numbers, by name
}

// limit is one entry of x-limits: a number of the protocol and what it
// bounds. Its name says its unit: Ms milliseconds, Bytes bytes, else a
// count.
type limit struct {
	Name        string
	Value       int64  `json:"value"`
	Description string `json:"description"`
}

// constant is a named value of the schema: an error code, a wire error's
// message or the name of an environment variable.
type constant struct {
	Name  string
	Value json.RawMessage
}

type named struct {
	Name   string
	Schema *schema
}

// method is one entry of x-methods.
type method struct {
	Name         string
	Description  string  `json:"description"`
	Direction    string  `json:"direction"`
	Notification bool    `json:"notification"`
	WASMOnly     bool    `json:"wasmOnly"`
	Params       *schema `json:"params"`
	Result       *schema `json:"result"`
}

// schema is the subset of JSON Schema the protocol schema uses.
type schema struct {
	Ref                  string            `json:"$ref"`
	Type                 typeList          `json:"type"`
	Description          string            `json:"description"`
	Properties           orderedSchemas    `json:"properties"`
	Required             []string          `json:"required"`
	Items                *schema           `json:"items"`
	AdditionalProperties *schema           `json:"-"`
	RawAdditional        json.RawMessage   `json:"additionalProperties"`
	Enum                 []json.RawMessage `json:"enum"`
	Const                json.RawMessage   `json:"const"`
}

// typeList is "type": a name or a list of names.
type typeList []string

func (t *typeList) UnmarshalJSON(data []byte) error {
	var one string
	if json.Unmarshal(data, &one) == nil {
		*t = typeList{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(data, &many); err != nil {
		return fmt.Errorf("type: want a name or a list of names: %w", err)
	}
	*t = many
	return nil
}

// orderedSchemas is an object of schemas kept in document order.
type orderedSchemas []named

func (o *orderedSchemas) UnmarshalJSON(data []byte) error {
	return eachMember(data, func(name string, raw json.RawMessage) error {
		s, err := parseSchema(raw)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		*o = append(*o, named{name, s})
		return nil
	})
}

func (s *schema) required(name string) bool {
	for _, r := range s.Required {
		if r == name {
			return true
		}
	}
	return false
}

// refName is the $defs name a $ref points to, or "".
func (s *schema) refName() string {
	if s == nil {
		return ""
	}
	name, _ := strings.CutPrefix(s.Ref, "#/$defs/")
	return name
}

func parseSchema(raw json.RawMessage) (*schema, error) {
	var s schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// UnmarshalJSON reads a schema and its additionalProperties, which is
// either a boolean or a schema.
func (s *schema) UnmarshalJSON(data []byte) error {
	type plain schema
	if err := json.Unmarshal(data, (*plain)(s)); err != nil {
		return err
	}
	extra := s.RawAdditional
	if len(extra) == 0 || string(extra) == "false" || string(extra) == "true" {
		return nil
	}
	s.AdditionalProperties = new(schema)
	if err := json.Unmarshal(extra, s.AdditionalProperties); err != nil {
		return fmt.Errorf("additionalProperties: %w", err)
	}
	return nil
}

// parseDocument reads the protocol schema.
func parseDocument(data []byte) (*document, error) {
	var top struct {
		Title    string          `json:"title"`
		Defs     json.RawMessage `json:"$defs"`
		Methods  json.RawMessage `json:"x-methods"`
		Codes    json.RawMessage `json:"x-codes"`
		Messages json.RawMessage `json:"x-messages"`
		Env      json.RawMessage `json:"x-environment"`
		Limits   json.RawMessage `json:"x-limits"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, err
	}
	doc := &document{Title: top.Title}
	var defs orderedSchemas
	if err := json.Unmarshal(top.Defs, &defs); err != nil {
		return nil, fmt.Errorf("$defs: %w", err)
	}
	doc.Defs = defs
	err := eachMember(top.Methods, func(name string, raw json.RawMessage) error {
		var m method
		if err := json.Unmarshal(raw, &m); err != nil {
			return fmt.Errorf("x-methods/%s: %w", name, err)
		}
		m.Name = name
		doc.Methods = append(doc.Methods, m)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if doc.Codes, err = constants(top.Codes); err != nil {
		return nil, fmt.Errorf("x-codes: %w", err)
	}
	if doc.Messages, err = constants(top.Messages); err != nil {
		return nil, fmt.Errorf("x-messages: %w", err)
	}
	if doc.Env, err = constants(top.Env); err != nil {
		return nil, fmt.Errorf("x-environment: %w", err)
	}
	if doc.Limits, err = limits(top.Limits); err != nil {
		return nil, fmt.Errorf("x-limits: %w", err)
	}
	return doc, nil
}

// limits reads x-limits, in order; every number is positive.
func limits(data json.RawMessage) ([]limit, error) {
	var out []limit
	if len(data) == 0 {
		return nil, nil
	}
	err := eachMember(data, func(name string, raw json.RawMessage) error {
		var l limit
		if err := json.Unmarshal(raw, &l); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if l.Value <= 0 || l.Description == "" {
			return fmt.Errorf("%s: wants a positive value and a description", name)
		}
		l.Name = name
		out = append(out, l)
		return nil
	})
	return out, err
}

// constants reads an object of named values, in order.
func constants(data json.RawMessage) ([]constant, error) {
	if len(data) == 0 {
		return nil, nil
	}
	var out []constant
	err := eachMember(data, func(name string, raw json.RawMessage) error {
		out = append(out, constant{Name: name, Value: raw})
		return nil
	})
	return out, err
}

// eachMember calls fn with each member of a JSON object, in order.
func eachMember(data []byte, fn func(name string, raw json.RawMessage) error) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return fmt.Errorf("want an object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		if err := fn(tok.(string), raw); err != nil {
			return err
		}
	}
	return nil
}
