package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// tsFile writes the TypeScript types of every $defs entry and the table of
// methods.
func tsFile(doc *document, header string) []byte {
	t := &tsGen{}
	t.printf("%s\n\n", header)
	for _, d := range doc.Defs {
		t.comment("", d.Schema.Description)
		if isInterface(d.Schema) {
			t.printf("export interface %s %s\n\n", d.Name, t.object(d.Schema, ""))
			continue
		}
		t.printf("export type %s = %s;\n\n", d.Name, t.typeOf(d.Schema, ""))
	}
	t.methods(doc.Methods)
	t.constants("Codes", "The error codes of protocol 1 by name (JSON-RPC's and Escouade's).", doc.Codes)
	t.constants("Environment", "The environment variables a process plugin gets, by name.", doc.Env)
	return t.buf.Bytes()
}

// constants writes named values as an interface of literal types (a .d.ts
// holds no values).
func (t *tsGen) constants(name, doc string, cs []constant) {
	if len(cs) == 0 {
		return
	}
	t.printf("\n")
	t.comment("", doc)
	t.printf("export interface %s {\n", name)
	for _, c := range cs {
		t.printf("  %s: %s;\n", c.Name, c.Value)
	}
	t.printf("}\n")
}

type tsGen struct{ buf bytes.Buffer }

func (t *tsGen) printf(format string, args ...any) { fmt.Fprintf(&t.buf, format, args...) }

func (t *tsGen) comment(indent, text string) {
	lines := wrap(text, commentWidth)
	switch len(lines) {
	case 0:
	case 1:
		t.printf("%s/** %s */\n", indent, lines[0])
	default:
		t.printf("%s/**\n", indent)
		for _, l := range lines {
			t.printf("%s * %s\n", indent, l)
		}
		t.printf("%s */\n", indent)
	}
}

func isInterface(s *schema) bool { return len(s.Properties) > 0 }

// typeOf returns the TypeScript type of s, inline objects written in place
// at the given indent.
func (t *tsGen) typeOf(s *schema, indent string) string {
	switch {
	case s.Ref != "":
		return s.refName()
	case len(s.Const) > 0:
		return literal(s.Const)
	case len(s.Enum) > 0:
		parts := make([]string, len(s.Enum))
		for i, v := range s.Enum {
			parts[i] = literal(v)
		}
		return strings.Join(parts, " | ")
	case len(s.Properties) > 0:
		return t.object(s, indent)
	case len(s.Type) == 0:
		return "unknown"
	}
	parts := make([]string, len(s.Type))
	for i, typ := range s.Type {
		parts[i] = t.scalar(typ, s, indent)
	}
	return strings.Join(parts, " | ")
}

func (t *tsGen) scalar(typ string, s *schema, indent string) string {
	switch typ {
	case "string", "boolean", "null":
		return typ
	case "integer", "number":
		return "number"
	case "array":
		if s.Items == nil {
			return "unknown[]"
		}
		item := t.typeOf(s.Items, indent)
		if strings.Contains(item, " | ") {
			item = "(" + item + ")"
		}
		return item + "[]"
	case "object":
		return t.object(s, indent)
	}
	return "unknown"
}

// object writes an object type: its properties, then an index signature
// when other members are allowed with a shape.
func (t *tsGen) object(s *schema, indent string) string {
	if len(s.Properties) == 0 {
		if s.AdditionalProperties != nil {
			return "{ [name: string]: " + t.typeOf(s.AdditionalProperties, indent) + " }"
		}
		return "{ [member: string]: unknown }"
	}
	inner := indent + "  "
	var b strings.Builder
	b.WriteString("{\n")
	for _, p := range s.Properties {
		for _, line := range docLines(inner, p.Schema.Description) {
			b.WriteString(line)
		}
		optional := "?"
		if s.required(p.Name) {
			optional = ""
		}
		fmt.Fprintf(&b, "%s%s%s: %s;\n", inner, p.Name, optional, t.typeOf(p.Schema, inner))
	}
	if s.AdditionalProperties != nil {
		fmt.Fprintf(&b, "%s[name: string]: %s | undefined;\n", inner, t.typeOf(s.AdditionalProperties, inner))
	}
	b.WriteString(indent + "}")
	return b.String()
}

func docLines(indent, text string) []string {
	var sub tsGen
	sub.comment(indent, text)
	if sub.buf.Len() == 0 {
		return nil
	}
	return []string{sub.buf.String()}
}

// literal writes a JSON value as a TypeScript literal type.
func literal(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return "unknown"
	}
	return b.String()
}

// methods writes the Methods interface: each method's direction, whether
// it is a notification, and its params and result types.
func (t *tsGen) methods(ms []method) {
	t.comment("", "Every method of protocol 1 by name; a pattern such as \"permissions/*\" stands for every method under its prefix.")
	t.printf("export interface Methods {\n")
	for _, m := range ms {
		t.comment("  ", m.Description)
		t.printf("  %q: {\n", m.Name)
		t.printf("    direction: %q;\n    notification: %t;\n    wasmOnly: %t;\n", m.Direction, m.Notification, m.WASMOnly)
		if m.Params != nil {
			t.printf("    params: %s;\n", t.typeOf(m.Params, "    "))
		}
		if m.Result != nil {
			t.printf("    result: %s;\n", t.typeOf(m.Result, "    "))
		}
		t.printf("  };\n")
	}
	t.printf("}\n\n/** The name of a method, or of a pattern, of protocol 1. */\nexport type MethodName = keyof Methods;\n")
}
