package wasm

import (
	"os"
	"path/filepath"
	"testing"
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
