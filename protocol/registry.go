package protocol

import (
	"bytes"
	"cmp"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/escouade-dev/escouade-plugin/schemas"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// registry is the schema, loaded: the method table and a compiled schema for
// each method's params and result. It never changes once built.
type registry struct {
	exact        map[string]*entry
	patterns     []*entry // longest prefix first
	sorted       []*entry // by name
	defaultDelay time.Duration
}

// entry is one method with its compiled shapes; result is nil for a
// notification, which gets no answer.
type entry struct {
	method Method
	params *jsonschema.Schema
	result *jsonschema.Schema
}

// table returns the registry of the embedded schema, built at first use.
// It is package-level but immutable: the same schema always yields the same
// registry, so sharing it adds no state a caller could observe.
var table = sync.OnceValue(func() *registry {
	r, err := load(schemas.FS, schemas.Protocol)
	if err != nil {
		panic(fmt.Sprintf("protocol: the embedded schema %s does not load: %v", schemas.Protocol, err))
	}
	return r
})

// find returns the entry of method: exact name first, then patterns.
func (r *registry) find(method string) (*entry, bool) {
	if e, ok := r.exact[method]; ok {
		return e, true
	}
	for _, e := range r.patterns {
		if e.method.Matches(method) {
			return e, true
		}
	}
	return nil, false
}

// load reads, checks and compiles the schema file name of fsys.
func load(fsys fs.FS, name string) (*registry, error) {
	raw, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	doc, err := parseDocument(raw)
	if err != nil {
		return nil, err
	}
	c, err := newCompiler(doc.ID, raw)
	if err != nil {
		return nil, err
	}
	r := &registry{exact: map[string]*entry{}, defaultDelay: millis(doc.DefaultDelayMs)}
	for name, spec := range doc.Methods {
		e, err := compileEntry(c, doc.ID, name, spec)
		if err != nil {
			return nil, fmt.Errorf("x-methods/%s: %w", name, err)
		}
		r.add(e)
	}
	r.order()
	return r, nil
}

// newCompiler returns a compiler that knows the schema under its $id, so the
// "#/$defs/..." references of the method table resolve inside it.
func newCompiler(id string, raw []byte) (*jsonschema.Compiler, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(id, doc); err != nil {
		return nil, err
	}
	return c, nil
}

// compileEntry compiles the params and result schemas of one method entry.
func compileEntry(c *jsonschema.Compiler, id, name string, spec methodSpec) (*entry, error) {
	e := &entry{method: spec.method(name)}
	var err error
	if e.params, err = c.Compile(entryLocation(id, name, "params")); err != nil {
		return nil, err
	}
	if spec.Result != nil {
		if e.result, err = c.Compile(entryLocation(id, name, "result")); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// entryLocation is the URL of a member of a method entry, as a JSON pointer
// fragment (a "/" in the method name is escaped as "~1").
func entryLocation(id, name, member string) string {
	escaped := strings.NewReplacer("~", "~0", "/", "~1").Replace(name)
	return id + "#/x-methods/" + escaped + "/" + member
}

func (r *registry) add(e *entry) {
	if e.method.IsPattern() {
		r.patterns = append(r.patterns, e)
	} else {
		r.exact[e.method.Name] = e
	}
	r.sorted = append(r.sorted, e)
}

// order sorts the listing by name and the patterns longest first, so a more
// specific pattern wins over a broader one.
func (r *registry) order() {
	slices.SortFunc(r.sorted, func(a, b *entry) int {
		return strings.Compare(a.method.Name, b.method.Name)
	})
	slices.SortFunc(r.patterns, func(a, b *entry) int {
		return cmp.Or(
			cmp.Compare(len(b.method.Name), len(a.method.Name)),
			strings.Compare(a.method.Name, b.method.Name),
		)
	})
}
