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

// registry is the schema, loaded: the method table, and each method's
// params and result schemas, compiled the first time the method's messages
// are checked. The table never changes once built.
//
// Compiling every method at load cost a fresh host about 30 ms of CPU at
// its first handshake (a module's start waits for it; a process's start
// hides part of it behind the program's own start), for some forty methods
// of which a start uses two or three.
type registry struct {
	exact        map[string]*entry
	patterns     []*entry // longest prefix first
	sorted       []*entry // by name
	defaultDelay time.Duration

	mu       sync.Mutex // the compiler is not safe for concurrent use
	compiler *jsonschema.Compiler
	id       string
}

// entry is one method and its shapes, compiled once (shapes).
type entry struct {
	method    Method
	hasResult bool
	once      sync.Once
	compiled  shapes
	err       error
}

// shapes are a method's compiled schemas; result is nil for a
// notification, which gets no answer.
type shapes struct {
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

// load reads and checks the schema file name of fsys, and readies its
// compiler; each method's schemas compile when first asked for (shapesOf).
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
	r := &registry{exact: map[string]*entry{}, defaultDelay: millis(doc.DefaultDelayMs), compiler: c, id: doc.ID}
	for name, spec := range doc.Methods {
		r.add(&entry{method: spec.method(name), hasResult: spec.Result != nil})
	}
	r.order()
	return r, nil
}

// compileAll compiles every method's shapes, so that a mistake in any of
// them is found at once (the schema's tests), not at the method's first
// message.
func (r *registry) compileAll() error {
	for _, e := range r.sorted {
		if _, err := r.shapesOf(e); err != nil {
			return err
		}
	}
	return nil
}

// shapesOf returns e's compiled schemas, compiling them the first time.
// The embedded schema's are held by its tests; an error here is a mistake
// in a schema given to load.
func (r *registry) shapesOf(e *entry) (shapes, error) {
	e.once.Do(func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		e.compiled, e.err = compileEntry(r.compiler, r.id, e.method.Name, e.hasResult)
		if e.err != nil {
			e.err = fmt.Errorf("x-methods/%s: %w", e.method.Name, e.err)
		}
	})
	return e.compiled, e.err
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
func compileEntry(c *jsonschema.Compiler, id, name string, hasResult bool) (shapes, error) {
	var s shapes
	var err error
	if s.params, err = c.Compile(entryLocation(id, name, "params")); err != nil {
		return shapes{}, err
	}
	if hasResult {
		if s.result, err = c.Compile(entryLocation(id, name, "result")); err != nil {
			return shapes{}, err
		}
	}
	return s, nil
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
