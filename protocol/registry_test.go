package protocol

import (
	"io/fs"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/escouade-dev/escouade-plugin/schemas"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestTheEmbeddedSchemaLoads compiles every method's shapes: the host
// compiles them one by one as methods are first used, and a mistake must
// not wait for that.
func TestTheEmbeddedSchemaLoads(t *testing.T) {
	if _, err := loadAll(schemas.FS, schemas.Protocol); err != nil {
		t.Fatalf("load(%s) = %v", schemas.Protocol, err)
	}
}

// loadAll is load, then every method compiled.
func loadAll(fsys fs.FS, name string) (*registry, error) {
	r, err := load(fsys, name)
	if err != nil {
		return nil, err
	}
	return r, r.compileAll()
}

// TestMethodsCompileOnFirstUse holds the lazy compile: loading compiles
// nothing, checking a method's params compiles that method alone.
func TestMethodsCompileOnFirstUse(t *testing.T) {
	r, err := load(schemas.FS, schemas.Protocol)
	if err != nil {
		t.Fatal(err)
	}
	compiled := func() (names []string) {
		for _, e := range r.sorted {
			if e.compiled.params != nil {
				names = append(names, e.method.Name)
			}
		}
		return names
	}
	if got := compiled(); len(got) != 0 {
		t.Fatalf("compiled at load: %v", got)
	}
	e, _ := r.find("initialize")
	s, err := r.shapesOf(e)
	if err != nil || s.params == nil || s.result == nil {
		t.Fatalf("shapesOf(initialize) = %+v, %v", s, err)
	}
	if got := compiled(); len(got) != 1 || got[0] != "initialize" {
		t.Errorf("compiled after one method = %v, want [initialize]", got)
	}
}

// schemaWith returns a small schema document whose method table is methods.
func schemaWith(header, methods string) string {
	return `{
	"$schema": "https://json-schema.org/draft/2020-12/schema",
	` + header + `
	"x-errors": {"-32602": "bad params"},
	"x-methods": {` + methods + `},
	"$defs": {"Obj": {"type": "object"}}
}`
}

const goodHeader = `"$id": "https://example.test/p.json", "x-protocolVersion": 1, "x-defaultDelayMs": 5000,`

// TestLoadRefusesAnIncoherentSchema makes sure a mistake in the schema file
// fails at load, with a message naming the entry, rather than serving a
// wrong table.
func TestLoadRefusesAnIncoherentSchema(t *testing.T) {
	const call = `"direction": "host-to-plugin", "notification": false, "delayMs": 100, "params": {"$ref": "#/$defs/Obj"}, "result": {}, "errors": []`
	tests := []struct {
		name, doc, want string
	}{
		{"good", schemaWith(goodHeader, `"a/b": {`+call+`}`), ""},
		{"not JSON", `{`, "unexpected end of JSON input"},
		{"no $id", schemaWith(`"x-protocolVersion": 1, "x-defaultDelayMs": 5000,`, `"a": {`+call+`}`), "$id is missing"},
		{"other version", schemaWith(`"$id": "https://example.test/p.json", "x-protocolVersion": 2, "x-defaultDelayMs": 5000,`, `"a": {`+call+`}`), "x-protocolVersion is 2, want 1"},
		{"no default delay", schemaWith(`"$id": "https://example.test/p.json", "x-protocolVersion": 1,`, `"a": {`+call+`}`), "x-defaultDelayMs must be a positive number"},
		{"no methods", schemaWith(goodHeader, ``), "x-methods is empty"},
		{"star inside a name", schemaWith(goodHeader, `"a/*/b": {`+call+`}`), "x-methods/a/*/b: a name may hold * only"},
		{"empty segment", schemaWith(goodHeader, `"a//b": {`+call+`}`), `x-methods/a//b: segment "" is empty`},
		{"odd character", schemaWith(goodHeader, `"a#b": {`+call+`}`), `x-methods/a#b: segment "a#b" is empty or holds other`},
		{"star alone", schemaWith(goodHeader, `"*": {`+call+`}`), "x-methods/*: a name may hold * only"},
		{"misspelt member", schemaWith(goodHeader, `"a": {`+call+`, "wasmonly": true}`), `x-methods/a: unknown member "wasmonly"`},
		{"bad direction", schemaWith(goodHeader, `"a": {"direction": "up", "notification": true, "params": {}, "errors": []}`), `x-methods/a: direction "up" is neither`},
		{"no params", schemaWith(goodHeader, `"a": {"direction": "plugin-to-host", "notification": true, "errors": []}`), "x-methods/a: params is missing"},
		{"notification with result", schemaWith(goodHeader, `"a": {"direction": "plugin-to-host", "notification": true, "params": {}, "result": {}, "errors": []}`), "x-methods/a: a notification has no result"},
		{"call without result", schemaWith(goodHeader, `"a": {"direction": "plugin-to-host", "notification": false, "params": {}, "errors": []}`), "x-methods/a: result is missing"},
		{"call without delay", schemaWith(goodHeader, `"a": {"direction": "host-to-plugin", "notification": false, "params": {}, "result": {}, "errors": []}`), "x-methods/a: a host-to-plugin call needs a positive delayMs"},
		{"delay on a served method", schemaWith(goodHeader, `"a": {"direction": "plugin-to-host", "notification": false, "delayMs": 5, "params": {}, "result": {}, "errors": []}`), "x-methods/a: delayMs is only for host-to-plugin calls"},
		{"undescribed error", schemaWith(goodHeader, `"a": {"direction": "plugin-to-host", "notification": true, "params": {}, "errors": [-32099]}`), "x-methods/a: error -32099 is not described in x-errors"},
		{"dangling ref", schemaWith(goodHeader, `"a": {"direction": "plugin-to-host", "notification": true, "params": {"$ref": "#/$defs/Nope"}, "errors": []}`), "x-methods/a: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{"p.json": {Data: []byte(tt.doc)}}
			_, err := loadAll(fsys, "p.json")
			got := errText(err)
			if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
				t.Errorf("load() = %q, want an error holding %q", got, tt.want)
			}
		})
	}
}

func TestLoadFindsPatternsLongestFirst(t *testing.T) {
	const entry = `{"direction": "host-to-plugin", "notification": false, "delayMs": %s, "params": {}, "result": {}, "errors": []}`
	doc := schemaWith(goodHeader,
		`"a/*": `+strings.Replace(entry, "%s", "100", 1)+`,
		 "a/b/*": `+strings.Replace(entry, "%s", "200", 1)+`,
		 "a/b/c": `+strings.Replace(entry, "%s", "300", 1))
	r, err := load(fstest.MapFS{"p.json": {Data: []byte(doc)}}, "p.json")
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]string{"a/x": "a/*", "a/b/x": "a/b/*", "a/b/c": "a/b/c", "a/b/": "a/*"}
	for name, want := range tests {
		e, ok := r.find(name)
		if !ok || e.method.Name != want {
			t.Errorf("find(%q) = %v, want entry %q", name, e, want)
		}
	}
}

// TestShapesCompileOnceUnderConcurrentUse is for the race detector: every
// method's shapes asked for from several goroutines at once, each method
// compiled once and the same schema handed to all.
func TestShapesCompileOnceUnderConcurrentUse(t *testing.T) {
	r, err := load(schemas.FS, schemas.Protocol)
	if err != nil {
		t.Fatal(err)
	}
	const askers = 8
	got := make([][]*jsonschema.Schema, askers)
	var wg sync.WaitGroup
	for i := range askers {
		wg.Go(func() {
			for _, e := range r.sorted {
				s, err := r.shapesOf(e)
				if err != nil {
					t.Error(err)
					return
				}
				got[i] = append(got[i], s.params)
			}
		})
	}
	wg.Wait()
	for i := 1; i < askers; i++ {
		if !slices.Equal(got[0], got[i]) {
			t.Fatalf("asker %d got other schemas than asker 0", i)
		}
	}
}
