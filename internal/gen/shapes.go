package main

import "encoding/json"

// The Go and Rust generators walk the schema the same way and differ only
// in how they write a type: shapes is that walk, spelling the language's
// words. (TypeScript writes unions and inline objects in place, so its
// walk has no named inline shapes to keep: typescript.go.)

// spelling is how a language writes the schema's types.
type spelling struct {
	scalars  map[string]string         // JSON Schema's scalar types: string, integer, number, boolean, null
	any      string                    // a value of any shape, passed on as written
	array    func(item string) string  // an array of item
	dict     func(value string) string // an object of values
	nullable func(typ string) string   // typ or null
	consts   map[string]string         // a const's type, by constKind's kinds
}

// shapes is the walk the Go and Rust generators share: each shape's type
// expression, the inline objects and enums to declare after the $defs,
// and what each named shape is for.
type shapes struct {
	spell   spelling
	pending []inline          // inline objects and enums, declared after the $defs
	uses    map[string]string // what a $defs entry without description is for
}

// inline is an object or enum written inside another shape, declared as a
// type of its own.
type inline struct {
	name   string
	schema *schema
}

// next takes the next inline shape to declare.
func (g *shapes) next() (inline, bool) {
	if len(g.pending) == 0 {
		return inline{}, false
	}
	n := g.pending[0]
	g.pending = g.pending[1:]
	return n, true
}

// typeOf returns the type of s; an inline object or enum becomes a named
// type declared later, named by hint.
func (g *shapes) typeOf(s *schema, hint string) string {
	switch {
	case s.Ref != "":
		return s.refName()
	case len(s.Const) > 0:
		return constKind(s.Const, g.spell.consts, g.spell.any)
	case len(s.Enum) > 0 || len(s.Properties) > 0 && s.AdditionalProperties == nil:
		g.pending = append(g.pending, inline{hint, s})
		return hint
	}
	types := s.Type
	nullable := len(types) == 2 && types[1] == "null"
	if nullable {
		types = types[:1]
	}
	if len(types) != 1 {
		return g.spell.any
	}
	expr := g.scalar(types[0], s, hint)
	if nullable && expr != g.spell.any {
		return g.spell.nullable(expr)
	}
	return expr
}

func (g *shapes) scalar(typ string, s *schema, hint string) string {
	switch typ {
	case "array":
		if s.Items == nil {
			return g.spell.array(g.spell.any)
		}
		return g.spell.array(g.typeOf(s.Items, hint+"Item"))
	case "object":
		if s.AdditionalProperties != nil {
			return g.spell.dict(g.typeOf(s.AdditionalProperties, hint+"Value"))
		}
		return g.spell.dict(g.spell.any)
	}
	if t, ok := g.spell.scalars[typ]; ok {
		return t
	}
	return g.spell.any // no type at all: any value
}

// declDoc is the doc comment of a declared type: its description, else
// what it is for.
func (g *shapes) declDoc(name, description string) string {
	switch {
	case description != "":
		return name + " is " + lowerFirst(description)
	case g.uses[name] != "":
		return name + " is " + g.uses[name] + "."
	}
	return name + " is a shape of the protocol schema."
}

// constKind names the type of a const's JSON value in a language: types
// maps the JSON kinds "string", "number" and "bool" to its names, and any
// other value (null, an object, one that does not decode) is other.
func constKind(raw json.RawMessage, types map[string]string, other string) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return other
	}
	var kind string
	switch v.(type) {
	case string:
		kind = "string"
	case float64:
		kind = "number"
	case bool:
		kind = "bool"
	}
	if t, ok := types[kind]; ok {
		return t
	}
	return other
}
