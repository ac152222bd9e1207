package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/format"
	"strconv"
	"strings"
)

// commentWidth is where doc comments are wrapped.
const commentWidth = 76

// goTypesFile writes the Go types of every $defs entry (vocab/proto), and
// returns the names it declared, types and enum values, for the kit's
// aliases.
func goTypesFile(doc *document, header string) ([]byte, []string, error) {
	g := &goGen{shapes: shapes{spell: goSpelling, uses: uses(doc.Methods)}}
	g.printf("%s\n\npackage proto\n\nimport \"encoding/json\"\n\n", header)
	g.printf("// JSON is where a shape is free: passed on as written.\ntype JSON = json.RawMessage\n\n")
	g.declared = append(g.declared, "JSON")
	for _, d := range doc.Defs {
		g.decl(d.Name, d.Schema)
	}
	for next, ok := g.next(); ok; next, ok = g.next() {
		g.decl(next.name, next.schema)
	}
	out, err := formatGo(g.buf.Bytes())
	return out, g.declared, err
}

// goVocabFile writes the vocabulary (package vocab): the method names, the
// error codes and messages, the environment names and the protocol's
// numbers, as constants and
// with no import, so that any package, the Go kit first, may use it.
func goVocabFile(doc *document, header string) ([]byte, error) {
	g := &goGen{}
	g.printf("%s\n\npackage vocab\n\n", header)
	g.methods(doc.Methods)
	g.constants("Code", "Error codes of protocol 1 (JSON-RPC's and Escouade's, docs/protocol.md#7-what-the-host-serves-a-process).", doc.Codes)
	g.constants("Message", "The messages of the wire errors the host answers: short English sentences, JSON-RPC's own for its codes (docs/protocol.md#7-what-the-host-serves-a-process).", doc.Messages)
	g.constants("Env", "The environment variables a process plugin gets (docs/protocol.md#2-starting-the-program).", doc.Env)
	g.limits(doc.Limits)
	return formatGo(g.buf.Bytes())
}

// goAliasFile writes kit/proto: the plugin kit's names for the generated
// types and the vocabulary, aliases of vocab/proto and vocab, so a plugin
// keeps one import and nothing is declared twice.
func goAliasFile(doc *document, header string, declared []string) ([]byte, error) {
	g := &goGen{}
	g.printf("%s\n\npackage proto\n\nimport (\n\t\"%s\"\n\tshapes \"%s\"\n)\n\n", header, vocabImport, typesImport)
	g.printf("// The shapes of the protocol (vocab/proto).\n")
	for _, name := range declared {
		if strings.HasPrefix(name, "const ") {
			name = strings.TrimPrefix(name, "const ")
			g.printf("const %s = shapes.%s\n", name, name)
			continue
		}
		g.printf("type %s = shapes.%s\n", name, name)
	}
	g.printf("\n// The vocabulary (vocab).\nconst (\n")
	for _, m := range doc.Methods {
		name := methodConstName(m.Name)
		g.printf("\t%s = vocab.%s\n", name, name)
	}
	for _, group := range []struct {
		prefix string
		cs     []constant
	}{{"Code", doc.Codes}, {"Message", doc.Messages}, {"Env", doc.Env}} {
		for _, c := range group.cs {
			g.printf("\t%s%s = vocab.%s%s\n", group.prefix, c.Name, group.prefix, c.Name)
		}
	}
	g.printf(")\n")
	return formatGo(g.buf.Bytes())
}

// formatGo gofmts generated Go, which must parse.
func formatGo(src []byte) ([]byte, error) {
	out, err := format.Source(src)
	if err != nil {
		return nil, fmt.Errorf("generated Go does not parse: %w", err)
	}
	return out, nil
}

type goGen struct {
	shapes
	buf bytes.Buffer
	// declared lists the names declared, in order: a type by its name, an
	// enum's value as "const Name".
	declared []string
}

// goSpelling is how Go writes the schema's types.
var goSpelling = spelling{
	scalars:  map[string]string{"string": "string", "integer": "int64", "number": "float64", "boolean": "bool"},
	any:      "JSON",
	array:    func(item string) string { return "[]" + item },
	dict:     func(value string) string { return "map[string]" + value },
	nullable: func(typ string) string { return "*" + typ },
	consts:   map[string]string{"string": "string", "number": "int64", "bool": "bool"},
}

func (g *goGen) printf(format string, args ...any) { fmt.Fprintf(&g.buf, format, args...) }

func (g *goGen) comment(indent, text string) {
	for _, line := range wrap(text, commentWidth) {
		g.printf("%s// %s\n", indent, line)
	}
}

// decl declares the type name for s, with its doc comment.
func (g *goGen) decl(name string, s *schema) {
	g.declared = append(g.declared, name)
	g.comment("", g.declDoc(name, s.Description))
	switch {
	case len(s.Properties) > 0 && s.AdditionalProperties == nil:
		g.printf("type %s struct {\n", name)
		g.fields(name, s)
		g.printf("}\n\n")
	case len(s.Enum) > 0:
		g.enum(name, s)
	default:
		expr := g.typeOf(s, name)
		if isAlias(expr) {
			g.printf("type %s = %s\n\n", name, expr)
		} else {
			g.printf("type %s %s\n\n", name, expr)
		}
	}
}

// isAlias tells the types declared as aliases: a defined type over
// json.RawMessage would lose its JSON methods, and a defined pointer type
// is awkward to use.
func isAlias(expr string) bool {
	return expr == "JSON" || strings.HasPrefix(expr, "*")
}

func (g *goGen) fields(parent string, s *schema) {
	for _, p := range s.Properties {
		if p.Schema.Description != "" {
			g.comment("\t", p.Schema.Description)
		}
		hint := parent + exported(p.Name)
		g.uses[hint] = "the " + p.Name + " member of " + parent
		typ := g.typeOf(p.Schema, hint)
		tag := p.Name
		if !s.required(p.Name) {
			tag += ",omitempty"
			if g.isStruct(p.Schema) {
				typ = "*" + typ
			}
		}
		g.printf("\t%s %s `json:%q`\n", exported(p.Name), typ, tag)
	}
}

// isStruct reports whether s is declared as a struct, so an optional
// member of it is a pointer (omitempty never leaves out a struct value).
func (g *goGen) isStruct(s *schema) bool {
	return s.Ref == "" && len(s.Properties) > 0 && s.AdditionalProperties == nil
}

func (g *goGen) enum(name string, s *schema) {
	g.printf("type %s string\n\n", name)
	g.printf("// The values of %s.\nconst (\n", name)
	for _, raw := range s.Enum {
		var v string
		if json.Unmarshal(raw, &v) != nil {
			continue
		}
		g.printf("\t%s%s %s = %q\n", name, exported(v), name, v)
		g.declared = append(g.declared, "const "+name+exported(v))
	}
	g.printf(")\n\n")
}

// methods writes a constant per method name, and per pattern its prefix.
func (g *goGen) methods(ms []method) {
	g.printf("// Method names of protocol 1. A pattern such as \"permissions/*\" is given\n")
	g.printf("// by its prefix (MethodPrefixPermissions = \"permissions/\").\nconst (\n")
	for _, m := range ms {
		constName := methodConstName(m.Name)
		value, _ := strings.CutSuffix(m.Name, "*")
		g.comment("\t", constName+" names "+methodDoc(m, goTypeName))
		g.printf("\t%s = %q\n", constName, value)
	}
	g.printf(")\n")
}

// methodConstName is the constant of a method name, or of a pattern's
// prefix ("permissions/*" is MethodPrefixPermissions).
func methodConstName(name string) string {
	if prefix, ok := strings.CutSuffix(name, "*"); ok {
		return "MethodPrefix" + exported(prefix)
	}
	return "Method" + exported(name)
}

// constants writes a block of named values under one doc comment.
func (g *goGen) constants(prefix, doc string, cs []constant) {
	if len(cs) == 0 {
		return
	}
	g.printf("\n")
	g.comment("", doc)
	g.printf("const (\n")
	for _, c := range cs {
		g.printf("\t%s%s = %s\n", prefix, c.Name, c.Value)
	}
	g.printf(")\n")
}

// limits writes the protocol's numbers, each under what it bounds. Package
// protocol gives them their types (time.Duration for the Ms ones); only
// layer 1 (jsonrpc), which may not import protocol, reads them here.
func (g *goGen) limits(ls []limit) {
	if len(ls) == 0 {
		return
	}
	g.printf("\n")
	g.comment("", "The protocol's numbers (docs/protocol.md#numbers): a name ending in Ms is in milliseconds, in Bytes in bytes, any other a count.")
	g.printf("const (\n")
	for _, l := range ls {
		g.comment("\t", l.Description)
		g.printf("\tLimit%s = %s\n", l.Name, limitLiteral(l))
	}
	g.printf(")\n")
}

// limitLiteral writes a number of bytes in the unit a reader counts it in
// (8 << 20 is 8 MiB), any other number as it is.
func limitLiteral(l limit) string {
	if strings.HasSuffix(l.Name, "Bytes") {
		for _, shift := range []int{30, 20, 10} {
			if l.Value%(1<<shift) == 0 {
				return fmt.Sprintf("%d << %d", l.Value>>shift, shift)
			}
		}
	}
	return strconv.FormatInt(l.Value, 10)
}

func goTypeName(s *schema) string {
	if s == nil {
		return ""
	}
	return s.refName()
}

// methodDoc says who sends a method, the types of its params and result,
// and what it is for.
func methodDoc(m method, typeName func(*schema) string) string {
	facts := []string{strings.ReplaceAll(m.Direction, "-", " ")}
	if m.Notification {
		facts = append(facts, "a notification")
	}
	if m.WASMOnly {
		facts = append(facts, "WASM plugins only")
	}
	if p := typeName(m.Params); p != "" {
		facts = append(facts, "params "+p)
	}
	if r := typeName(m.Result); r != "" {
		facts = append(facts, "result "+r)
	}
	return fmt.Sprintf("%s (%s): %s", m.Name, strings.Join(facts, "; "), lowerFirst(m.Description))
}

// uses tells, for each $defs entry that methods name, what it is for:
// "the params of secrets/get".
func uses(ms []method) map[string]string {
	found := map[string][]string{}
	for _, m := range ms {
		if p := m.Params.refName(); p != "" {
			found[p] = append(found[p], "the params of "+m.Name)
		}
		if m.Result != nil {
			if r := m.Result.refName(); r != "" {
				found[r] = append(found[r], "the result of "+m.Name)
			}
		}
	}
	out := map[string]string{}
	for name, what := range found {
		out[name] = strings.Join(what, ", ")
	}
	return out
}
