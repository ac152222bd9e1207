package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
)

// rustFile writes the Rust kit's types of every $defs entry, the method
// names and the codes, with serde's derives: an object is a struct (an
// optional member an Option left out when None), an enum a Rust enum, a
// nullable value an Option, a map a BTreeMap (a stable order), and a free
// shape serde_json::Value.
func rustFile(doc *document, header string) []byte {
	g := &rustGen{shapes: shapes{spell: rustSpelling, uses: uses(doc.Methods)}}
	g.printf("%s\n\n", header)
	g.printf("//! The protocol's types, generated from the protocol schema.\n\n")
	g.printf("#![allow(clippy::all)]\n\nuse serde::{Deserialize, Serialize};\nuse std::collections::BTreeMap;\n\n")
	g.printf("/// JSON is where a shape is free: passed on as written.\npub type Json = serde_json::Value;\n\n")
	for _, d := range doc.Defs {
		g.decl(d.Name, d.Schema)
	}
	for next, ok := g.next(); ok; next, ok = g.next() {
		g.decl(next.name, next.schema)
	}
	g.methods(doc.Methods)
	g.constants("CODE_", "i64", "Error codes of protocol 1 (JSON-RPC's and Escouade's).", doc.Codes)
	g.constants("ENV_", "&str", "The environment variables a process plugin gets.", doc.Env)
	g.limits(doc.Limits)
	return g.buf.Bytes()
}

type rustGen struct {
	shapes
	buf bytes.Buffer
}

// rustSpelling is how Rust writes the schema's types.
var rustSpelling = spelling{
	scalars:  map[string]string{"string": "String", "integer": "i64", "number": "f64", "boolean": "bool", "null": "()"},
	any:      "Json",
	array:    func(item string) string { return "Vec<" + item + ">" },
	dict:     func(value string) string { return "BTreeMap<String, " + value + ">" },
	nullable: func(typ string) string { return "Option<" + typ + ">" },
	consts:   map[string]string{"string": "String", "number": "i64", "bool": "bool"},
}

func (g *rustGen) printf(format string, args ...any) { fmt.Fprintf(&g.buf, format, args...) }

func (g *rustGen) comment(indent, text string) {
	for _, line := range wrap(text, commentWidth) {
		g.printf("%s/// %s\n", indent, line)
	}
}

const rustDerive = "#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]\n"

func (g *rustGen) decl(name string, s *schema) {
	g.comment("", g.declDoc(name, s.Description))
	switch {
	case len(s.Properties) > 0 && s.AdditionalProperties == nil:
		g.printf("%s", strings.Replace(rustDerive, "PartialEq", "PartialEq, Default", 1))
		g.printf("pub struct %s {\n", name)
		g.fields(name, s)
		g.printf("}\n\n")
	case len(s.Enum) > 0:
		g.enum(name, s)
	default:
		g.printf("pub type %s = %s;\n\n", name, g.typeOf(s, name))
	}
}

func (g *rustGen) fields(parent string, s *schema) {
	for _, p := range s.Properties {
		if p.Schema.Description != "" {
			g.comment("    ", p.Schema.Description)
		}
		hint := parent + exported(p.Name)
		g.uses[hint] = "the " + p.Name + " member of " + parent
		typ := g.typeOf(p.Schema, hint)
		field := rustField(p.Name)
		g.printf("    #[serde(rename = %q", p.Name)
		if !s.required(p.Name) {
			if !strings.HasPrefix(typ, "Option<") {
				typ = "Option<" + typ + ">"
			}
			g.printf(", default, skip_serializing_if = \"Option::is_none\"")
		}
		g.printf(")]\n    pub %s: %s,\n", field, typ)
	}
}

// enum writes a string enum; its first value is its Default, so that a
// struct holding one derives Default.
func (g *rustGen) enum(name string, s *schema) {
	g.printf("%s", rustDerive)
	g.printf("pub enum %s {\n", name)
	var first string
	for _, raw := range s.Enum {
		var v string
		if json.Unmarshal(raw, &v) != nil {
			continue
		}
		variant := exported(v)
		if first == "" {
			first = variant
		}
		g.printf("    #[serde(rename = %q)]\n    %s,\n", v, variant)
	}
	g.printf("}\n\n")
	g.printf("impl Default for %s {\n    fn default() -> Self {\n        %s::%s\n    }\n}\n\n", name, name, first)
}

// methods writes a constant per method name, and per pattern its prefix.
func (g *rustGen) methods(ms []method) {
	g.printf("// Method names of protocol 1. A pattern such as \"permissions/*\" is given\n")
	g.printf("// by its prefix (METHOD_PREFIX_PERMISSIONS = \"permissions/\").\n\n")
	for _, m := range ms {
		name := "METHOD_" + screaming(m.Name)
		value := m.Name
		if prefix, ok := strings.CutSuffix(m.Name, "*"); ok {
			name, value = "METHOD_PREFIX_"+screaming(prefix), prefix
		}
		g.comment("", name+" names "+methodDoc(m, goTypeName))
		g.printf("pub const %s: &str = %q;\n", name, value)
	}
}

func (g *rustGen) constants(prefix, typ, doc string, cs []constant) {
	if len(cs) == 0 {
		return
	}
	g.printf("\n")
	g.comment("", doc)
	for _, c := range cs {
		g.printf("pub const %s%s: %s = %s;\n", prefix, screaming(c.Name), typ, c.Value)
	}
}

// limits writes the protocol's numbers (x-limits), each under what it
// bounds: a name ending in MS is in milliseconds, in BYTES in bytes.
func (g *rustGen) limits(ls []limit) {
	if len(ls) == 0 {
		return
	}
	g.printf("\n")
	g.comment("", "The protocol's numbers (docs/protocol.md#numbers).")
	for _, l := range ls {
		g.comment("", l.Description)
		g.printf("pub const LIMIT_%s: u64 = %s;\n", screaming(l.Name), limitLiteral(l))
	}
}

// rustKeywords are the member names a Rust field cannot take as they are.
var rustKeywords = map[string]bool{"type": true, "match": true, "ref": true, "mod": true, "use": true, "fn": true, "loop": true, "move": true, "self": true, "static": true, "struct": true, "trait": true, "where": true, "async": true, "await": true, "dyn": true, "box": true, "in": true, "impl": true, "for": true, "if": true, "else": true, "let": true, "mut": true, "pub": true, "return": true, "super": true, "true": true, "false": true, "while": true, "enum": true, "const": true, "crate": true, "extern": true, "unsafe": true, "override": true, "final": true}

// rustField is a member name in snake case ("timeoutMs" → "timeout_ms").
func rustField(name string) string {
	parts := words(name)
	for i, p := range parts {
		parts[i] = strings.ToLower(p)
	}
	field := strings.Join(parts, "_")
	if rustKeywords[field] {
		return "r#" + field
	}
	return field
}

// screaming is a name in capitals with underscores ("secrets/get" →
// "SECRETS_GET", "NotYours" → "NOT_YOURS").
func screaming(name string) string {
	parts := words(name)
	for i, p := range parts {
		parts[i] = strings.ToUpper(p)
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' {
			return r
		}
		return '_'
	}, strings.Join(parts, "_"))
}
