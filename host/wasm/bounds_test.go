package wasm

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/escouade-dev/escouade-plugin/transport"
)

// Real modules pass the pre-pass's bounds with room: ten times what each
// uses still fits (five times the deepest nesting: a Go function's blocks
// nest as deep as it has calls). The figures
// are logged (go test -v -run TestRealModulesWithinBounds) for
// docs/RATIONALE.md.
func TestRealModulesWithinBounds(t *testing.T) {
	engine, err := os.ReadFile(filepath.Join("..", "..", "jsrt", "quickjs.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	modules := map[string][]byte{"the JS engine": engine}
	for _, name := range []string{"reactor", "command", "c-command", "c-reactor"} {
		modules[name] = fixture(t, name)
	}
	for name, b := range modules {
		p, err := measure(b, 64<<20)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		t.Logf("%s: %d bytes, %d functions, code %d bytes, biggest function %d bytes, most locals %d, %d locals in all, nesting %d (squares %d), table entries %d, element entries %d",
			name, len(b), p.functions, p.codeSize, p.biggestFunction, p.mostLocals, p.locals, p.deepestNesting, p.nestingSquares, p.tableEntries, p.elements)
		for _, m := range []struct {
			what       string
			got, bound uint64
			room       uint64 // how many times today's figure must fit
		}{
			{"functions", p.functions, maxFunctions, 10},
			{"code bytes", uint64(p.codeSize), maxCodeSize, 10},
			{"bytes of a function", p.biggestFunction, maxFunctionSize, 10},
			{"locals of a function", p.mostLocals, maxLocalsPerFunction, 10},
			{"locals", p.locals, maxLocals, 10},
			{"nesting", p.deepestNesting, maxNesting, 5},
			{"squares of nestings", p.nestingSquares, maxNestingSquares, 10},
			{"table entries", p.tableEntries, maxTableEntries, 10},
			{"element entries", p.elements, maxElements, 10},
		} {
			if m.got*m.room > m.bound {
				t.Errorf("%s: %d %s, the bound %d is not %d times that", name, m.got, m.what, m.bound, m.room)
			}
		}
	}
}

// A module past a bound is refused before the compiler sees it, by a
// sentence that names the bound and its number; one within them compiles
// as it would have.
func TestBoundsRefuse(t *testing.T) {
	tr := newTransport(t, Options{})
	tests := []struct {
		name   string
		module []byte
		want   string
	}{
		{"locals", manyLocals, "plugin.wasm: function 0 declares 50000000 locals; the limit is 50000"},
		{"nesting", deepBlocks, "plugin.wasm: function 0 nests blocks 4097 deep; the limit is 4096"},
		{"table", hugeTable, "plugin.wasm: table 0 starts with 2097152 entries, past the limit of 1048576 entries in all tables"},
		{"elements", manyElements, "plugin.wasm: its element segments hold at least 2097152 entries; the limit is 1048576"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tr.Precompile(t.Context(), pluginDir(t, tt.module, nil), nil)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("Precompile error %v, want %q", err, tt.want)
			}
		})
	}
}

// A table declared without a maximum is bounded: a grow of 2^27 entries
// (1 GiB of host memory) fails as the format lets any grow fail, and the
// instance goes on. The module's one table is bounded by the runtime's
// own table limit (its bytes kept as they are); TestBoundTables holds the
// maxima written into a module of several.
func TestTableGrowFails(t *testing.T) {
	tr := newTransport(t, Options{})
	prog := launch(t, tr, specOf(pluginDir(t, tableGrows, nil)))
	if got, want := ended(t, prog), (transport.Exit{Kind: transport.Exited, Code: 1}); got != want {
		t.Fatalf("exit %v, want %v (the grow refused)", got, want)
	}
}

// The tables' maxima, lowered, add up to the bound and keep each table's
// own maximum when it is lower.
func TestBoundTables(t *testing.T) {
	twoTables := rawModule(section(secTable, vec(
		[]byte{refFunc, 0, 10},   // no maximum
		[]byte{refFunc, 1, 5, 7}, // 5 to 7
		[]byte{0x6f, 0, 100})))   // externref, no maximum
	out, err := bounded(twoTables, 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	p, err := measure(out, 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	room := uint64(maxTableEntries-115) / 3
	want := []tableDecl{{refFunc, 1, 10, 10 + room, true}, {refFunc, 1, 5, 7, true}, {0x6f, 1, 100, 100 + room, true}}
	if diff := cmp.Diff(want, p.defined, cmp.AllowUnexported(tableDecl{})); diff != "" {
		t.Errorf("tables (-want +got):\n%s", diff)
	}
	if again := p.boundTables(out); !bytes.Equal(again, out) {
		t.Errorf("bounding bounded tables changed them")
	}
}

// The pre-pass reads any bytes without panicking, and what it returns
// passes it again unchanged.
func FuzzBounded(f *testing.F) {
	for _, m := range [][]byte{manyLocals, deepBlocks, hugeTable, manyElements, tableGrows, loopsInStart, exitsWith7, hugeMemory} {
		f.Add(m)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		out, err := bounded(b, 64<<20)
		if err != nil {
			return
		}
		again, err := bounded(out, 64<<20)
		if err != nil {
			t.Fatalf("bounded module refused: %v", err)
		}
		if !bytes.Equal(again, out) {
			t.Fatalf("bounded module changed again")
		}
	})
}

// A later start's shortcuts (the bodies not walked again, a single table
// left to the runtime's limit) pass every module the whole pre-pass
// passes, and hand the compiler either the same bytes as the pre-pass or
// the module as it is.
func FuzzBoundedAgain(f *testing.F) {
	for _, m := range [][]byte{manyLocals, deepBlocks, hugeTable, manyElements, tableGrows, loopsInStart, exitsWith7, hugeMemory} {
		f.Add(m)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		out, err := bounded(b, 64<<20)
		if err != nil {
			return
		}
		for _, tablesLimited := range []bool{false, true} {
			again, err := boundedAgain(b, 64<<20, true, tablesLimited)
			if err != nil {
				t.Fatalf("a module the pre-pass passed is refused on a later start (tables limited %v): %v", tablesLimited, err)
			}
			if !tablesLimited && !bytes.Equal(again, out) {
				t.Fatal("a later start wrote other tables' maxima than the first")
			}
			if tablesLimited && !bytes.Equal(again, out) && !bytes.Equal(again, b) {
				t.Fatal("a later start changed the module other than the pre-pass does")
			}
		}
	})
}
