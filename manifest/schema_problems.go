package manifest

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/escouade-dev/escouade-plugin/internal/closest"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// problems validates doc against the schema and turns every failure
// into a Problem.
func (s *compiledSchema) problems(doc any) []Problem {
	err := s.validator.Validate(doc)
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		if err != nil {
			return []Problem{{Message: "the manifest could not be validated: " + err.Error()}}
		}
		return nil
	}
	var out []Problem
	for _, leaf := range leaves(verr) {
		out = append(out, s.describe(leaf, doc)...)
	}
	return out
}

// leaves returns the failures that have no causes: the wrappers above them
// ($ref, allOf, a group of sibling failures) say nothing of their own.
func leaves(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	var out []*jsonschema.ValidationError
	for _, c := range e.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

// failure is one schema failure, located both in the manifest and in the
// schema.
type failure struct {
	at      string // JSON pointer into the manifest
	value   any    // the manifest's value there (for a key, the key)
	rule    string // schema location of the keyword, e.g. /properties/id pattern
	keyword string
}

func (s *compiledSchema) describe(e *jsonschema.ValidationError, doc any) []Problem {
	at := pointer(e.InstanceLocation...)
	rule := schemaLocation(e.SchemaURL)
	keyword := strings.Join(e.ErrorKind.KeywordPath(), "/")
	if _, ok := e.ErrorKind.(*kind.FalseSchema); ok {
		keyword = "false" // a false schema has no keyword of its own
	}
	f := failure{at: at, value: valueAt(doc, e.InstanceLocation), rule: rule, keyword: keyword}
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		return f.perMember(k.Missing, func(name string) (string, string) {
			return fmt.Sprintf("required %q is missing", name), fmt.Sprintf("add %q", name)
		})
	case *kind.AdditionalProperties:
		known := s.knownMembers(rule)
		return f.perMember(k.Properties, func(name string) (string, string) {
			return fmt.Sprintf("unknown key %q", name), unknownKeyFix(name, known)
		})
	case *kind.UniqueItems:
		f.at = child(at, fmt.Sprint(k.Duplicates[1]))
		return []Problem{f.problem(fmt.Sprintf("repeats item %d", k.Duplicates[0]), "remove the repeated entry")}
	}
	msg, fix := genericText(e.ErrorKind)
	return []Problem{f.problem(msg, fix)}
}

// perMember makes one problem per member name, each at the member's own
// pointer.
func (f failure) perMember(names []string, text func(string) (string, string)) []Problem {
	var out []Problem
	for _, name := range names {
		g := f
		g.at, g.value = child(f.at, name), name
		out = append(out, g.problem(text(name)))
	}
	return out
}

// problem applies the hint for the failing rule, if there is one, over
// the generic message and fix.
func (f failure) problem(msg, fix string) Problem {
	if h, ok := hintFor(f.rule, f.keyword); ok {
		if h.message != nil {
			msg = h.message(f.value)
		}
		if h.fix != "" {
			fix = h.fix
		}
	}
	return Problem{Pointer: f.at, Message: msg, Fix: fix}
}

// genericText says what a failure means when no hint knows better.
func genericText(k jsonschema.ErrorKind) (msg, fix string) {
	switch k := k.(type) {
	case *kind.Type:
		want := typeNames(k.Want)
		return "is " + article(k.Got) + ", not " + want, "write " + want
	case *kind.Const:
		return "is " + display(k.Got) + ", not " + display(k.Want), "write " + display(k.Want)
	case *kind.Enum:
		return display(k.Got) + " is not one of " + displayList(k.Want), "use one of " + displayList(k.Want)
	case *kind.Pattern:
		return quoteShort(k.Got) + " does not have the expected form", "match the pattern " + k.Want
	case *kind.MinLength:
		return "is empty", "write a value that is not empty, or leave the key out"
	case *kind.MinItems:
		return "is an empty list", fmt.Sprintf("give at least %d entry, or leave the key out", k.Want)
	case *kind.MinProperties:
		return "is an empty object", "give at least one member, or leave the key out"
	case *kind.MaxProperties:
		return fmt.Sprintf("has %d members, more than %d", k.Got, k.Want), fmt.Sprintf("keep at most %d", k.Want)
	case *kind.Minimum:
		return "is " + k.Got.RatString() + ", below the minimum of " + k.Want.RatString(), "use at least " + k.Want.RatString()
	case *kind.Maximum:
		return "is " + k.Got.RatString() + ", past the limit of " + k.Want.RatString(), "use at most " + k.Want.RatString()
	case *kind.FalseSchema:
		return "is not allowed here", "remove it"
	}
	return k.LocalizedString(message.NewPrinter(language.English)), ""
}

// knownMembers lists the properties the schema object at rule declares,
// read back from the schema document.
func (s *compiledSchema) knownMembers(rule string) []string {
	loc, _, _ := strings.Cut(rule, " ")
	obj, _ := valueAt(s.document, splitPointer(loc)).(map[string]any)
	props, _ := obj["properties"].(map[string]any)
	return slices.Sorted(maps.Keys(props))
}

func unknownKeyFix(name string, known []string) string {
	if len(known) == 0 {
		return fmt.Sprintf("remove %q", name)
	}
	if near := closest.Match(name, known); near != "" {
		return fmt.Sprintf("did you mean %q? write %q in its place; known keys: %s", near, near, strings.Join(known, ", "))
	}
	return fmt.Sprintf("remove %q or correct its spelling; known keys: %s", name, strings.Join(known, ", "))
}
