package protocol

import (
	"cmp"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// FieldError says which field of params (or of a result) does not hold and
// why. Its text names the field: "params/key: is required".
type FieldError struct {
	// In is InParams or InResult.
	In string
	// Pointer is the JSON pointer of the field ("/headers/Accept"); empty
	// for the value as a whole.
	Pointer string
	// Reason is a short English reason ("must be a string, not a number").
	Reason string
}

func (e *FieldError) Error() string {
	return e.In + e.Pointer + ": " + e.Reason
}

// newFieldError reduces a tree of validation errors to the one that names
// the deepest field.
func newFieldError(in string, ve *jsonschema.ValidationError) *FieldError {
	all := leaves(ve)
	best := describe(all[0])
	for _, leaf := range all[1:] {
		if f := describe(leaf); deeper(f, best) {
			best = f
		}
	}
	return &FieldError{In: in, Pointer: pointer(best.tokens), Reason: best.reason}
}

// leaves returns the errors of the tree that have no causes: the ones that
// say what failed rather than grouping others.
func leaves(ve *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(ve.Causes) == 0 {
		return []*jsonschema.ValidationError{ve}
	}
	var out []*jsonschema.ValidationError
	for _, c := range ve.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

// failure is a field and the reason it fails.
type failure struct {
	tokens []string
	reason string
}

// deeper reports whether a names a deeper field than b; ties go to the
// smaller pointer, then reason, so the answer never depends on the order in
// which the validator visited members.
func deeper(a, b failure) bool {
	return cmp.Or(
		cmp.Compare(len(b.tokens), len(a.tokens)),
		strings.Compare(pointer(a.tokens), pointer(b.tokens)),
		strings.Compare(a.reason, b.reason),
	) < 0
}

// describe turns one validation error into a field and a reason. A missing
// or unknown member is named itself, not the object that holds it.
func describe(ve *jsonschema.ValidationError) failure {
	at := ve.InstanceLocation
	switch k := ve.ErrorKind.(type) {
	case *kind.Required:
		return failure{member(at, k.Missing), reasonRequired}
	case *kind.AdditionalProperties:
		return failure{member(at, k.Properties), reasonUnknownMember}
	}
	return failure{at, reason(ve.ErrorKind)}
}

// member returns the location of the first of names under object at.
func member(at, names []string) []string {
	if len(names) == 0 {
		return at
	}
	return append(slices.Clone(at), slices.Min(names))
}

// pointer writes tokens as an RFC 6901 JSON pointer.
func pointer(tokens []string) string {
	escape := strings.NewReplacer("~", "~0", "/", "~1")
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escape.Replace(t))
	}
	return b.String()
}
