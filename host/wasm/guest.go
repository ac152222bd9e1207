package wasm

import "github.com/escouade-dev/escouade-plugin/manifest"

// guest is what an instance runs, decided in one place from the
// manifest's run: the plugin's own module (run.wasm), or the JS engine
// running the plugin's bundle (run.js). Everything that differs between
// the two at run time asks it.
type guest struct {
	// engine is the JS engine for a bundle, nil for a module of its own.
	engine Engine
}

// guestOf is the guest of a manifest's run.
func (t *Transport) guestOf(m *manifest.Manifest) guest {
	if m.Run.Kind() == manifest.RunJS {
		return guest{engine: t.o.JS}
	}
	return guest{}
}

// bundle reports whether the guest runs a bundle, mounted at BundleMount.
func (g guest) bundle() bool { return g.engine != nil }

// argv0 is the instance's only argument: what it runs.
func (g guest) argv0() string {
	if g.bundle() {
		return BundleMount + "/plugin.mjs"
	}
	return ModuleFile
}

// startsWithTurn reports whether a reactor's start includes a first turn
// with no input: the JS engine's, in which it starts its runtime and runs
// the bundle's top level.
func (g guest) startsWithTurn() bool { return g.bundle() }

// exitMapper is the engine's reading of its own exit codes, or nil: a
// module's exit code is its own.
func (g guest) exitMapper() ExitMapper {
	m, _ := g.engine.(ExitMapper)
	return m
}

// StackMapper is implemented by a JS engine that shows the stack positions
// of a bundle in the plugin's own sources (jsrt: through the source map
// beside the bundle): the function it returns rewrites one stderr line,
// nil when it has nothing to map.
type StackMapper interface {
	StackMapper(m *manifest.Manifest) func(line string) string
}

// stderrMapper rewrites each stderr line of an instance of m before it is
// kept and handed on, so that the journal and a crash's detail both name
// the plugin's sources; nil for a module of its own.
func (g guest) stderrMapper(m *manifest.Manifest) func(string) string {
	if sm, ok := g.engine.(StackMapper); ok {
		return sm.StackMapper(m)
	}
	return nil
}
