package manifest

import (
	"encoding/json"
	"strings"
	"testing"
)

// minimalManifest is the smallest manifest that holds.
const minimalManifest = `{"id":"dev.example.test","name":"Test","version":"1.0.0","escouade":{"api":"1"}}`

// edit changes a decoded manifest document.
type edit func(t *testing.T, doc map[string]any)

// set puts the JSON text value at the JSON pointer at, creating the objects
// on the way.
func set(at, value string) edit {
	return func(t *testing.T, doc map[string]any) {
		t.Helper()
		v, err := decodeNumbers(value)
		if err != nil {
			t.Fatalf("set %s: bad JSON %q: %v", at, value, err)
		}
		parent, last := walkTo(t, doc, at)
		parent[last] = v
	}
}

// remove deletes the member at the JSON pointer at.
func remove(at string) edit {
	return func(t *testing.T, doc map[string]any) {
		parent, last := walkTo(t, doc, at)
		delete(parent, last)
	}
}

func walkTo(t *testing.T, doc map[string]any, at string) (map[string]any, string) {
	t.Helper()
	tokens := strings.Split(strings.TrimPrefix(at, "/"), "/")
	node := doc
	for _, tok := range tokens[:len(tokens)-1] {
		next, ok := node[tok].(map[string]any)
		if !ok {
			next = map[string]any{}
			node[tok] = next
		}
		node = next
	}
	return node, tokens[len(tokens)-1]
}

// decodeNumbers decodes JSON keeping numbers as written, so that 1e400 or
// 3.0 reach the manifest unchanged.
func decodeNumbers(text string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// manifestWith returns the minimal manifest changed by edits.
func manifestWith(t *testing.T, edits ...edit) []byte {
	t.Helper()
	v, err := decodeNumbers(minimalManifest)
	if err != nil {
		t.Fatal(err)
	}
	doc := v.(map[string]any)
	for _, e := range edits {
		e(t, doc)
	}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// problemsOf returns the problems of a refusal, failing the test if err is
// not an *Error.
func problemsOf(t *testing.T, err error) []Problem {
	t.Helper()
	if err == nil {
		t.Fatal("accepted, want a refusal")
	}
	merr, ok := err.(*Error)
	if !ok {
		t.Fatalf("error is %T (%v), want *manifest.Error", err, err)
	}
	return merr.Problems
}

func pointersOf(problems []Problem) []string {
	out := make([]string, len(problems))
	for i, p := range problems {
		out[i] = p.Pointer
	}
	return out
}
