package wasm

import (
	"context"
	"errors"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// fakeEngine stands in for package jsrt: its module is the reactor
// fixture, its bundle a file in memory.
type fakeEngine struct {
	module []byte
	err    error
}

func (e fakeEngine) Module() []byte { return e.module }

func (e fakeEngine) Bundle(*manifest.Manifest) (fs.FS, error) {
	if e.err != nil {
		return nil, e.err
	}
	return fstest.MapFS{"plugin.mjs": {Data: []byte("console.log(1)")}}, nil
}

func jsManifest(t *testing.T) *manifest.Manifest {
	m := pluginDir(t, nil, map[string]string{"rules.json": "{}"})
	m.Run = &manifest.Run{JS: "dist/plugin.mjs"}
	return m
}

// A run.js plugin is an instance of the engine's module with the bundle at
// /bundle and the root JSON files at /plugin, on the same runtime or, when
// asked, on one without termination checks.
func TestJSEngine(t *testing.T) {
	for _, own := range []bool{false, true} {
		tr := newTransport(t, Options{JS: fakeEngine{module: fixture(t, "reactor")}, JSWithoutCloseOnContextDone: own})
		prog := launch(t, tr, specOf(jsManifest(t)))
		conn := connect(t, prog, nil)
		if diff := cmp.Diff(map[string]string{"plugin.mjs": "console.log(1)"}, call[map[string]string](t, conn, "files", "/bundle")); diff != "" {
			t.Errorf("/bundle (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(map[string]string{"rules.json": "{}"}, call[map[string]string](t, conn, "files", nil)); diff != "" {
			t.Errorf("/plugin (-want +got):\n%s", diff)
		}
		if (tr.js != tr.rt) != own {
			t.Errorf("JSWithoutCloseOnContextDone %v: own runtime %v", own, tr.js != tr.rt)
		}
	}
}

// A bundle the engine refuses, or no engine, is a launch error.
func TestJSRefused(t *testing.T) {
	tests := []struct {
		name   string
		engine Engine
		want   string
	}{
		{"no engine", nil, "this Escouade has no JS engine to run run.js"},
		{"refused bundle", fakeEngine{module: trapsInTurn, err: errors.New(`its bundle imports "node:http"`)}, `its bundle imports "node:http"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newTransport(t, Options{JS: tt.engine})
			_, err := tr.Launch(t.Context(), specOf(jsManifest(t)))
			if err == nil || err.Error() != tt.want {
				t.Errorf("Launch error %v, want %q", err, tt.want)
			}
		})
	}
}

// mappingEngine is a JS engine that says what its own exit codes mean.
type mappingEngine struct{ fakeEngine }

func (mappingEngine) ExitOf(code uint32, lastStderr []string, limit time.Duration) transport.Exit {
	if code == 1000 && len(lastStderr) > 0 {
		return transport.Exit{Kind: transport.Trapped, Detail: lastStderr[len(lastStderr)-1]}
	}
	return transport.Exit{Kind: transport.Exited, Code: int(code)}
}

// A JS engine that ends its instance with an exit code of its own has it
// read through ExitMapper: an uncaught exception becomes a crash with its
// text, not "exit code 1000".
func TestJSEngineExitCodesAreMapped(t *testing.T) {
	tr := newTransport(t, Options{JS: mappingEngine{fakeEngine{module: fixture(t, "reactor")}}})
	prog := launch(t, tr, specOf(jsManifest(t)))
	conn := connect(t, prog, nil)
	go conn.Call(context.Background(), "exit", 1000)
	<-prog.Done()
	want := transport.Exit{Kind: transport.Trapped, Detail: "exiting with 1000"}
	if diff := cmp.Diff(want, prog.Exit()); diff != "" {
		t.Errorf("exit (-want +got):\n%s", diff)
	}
}

// stackMappingEngine maps its exit codes and rewrites stderr lines, as
// jsrt shows a bundle's positions in the plugin's sources.
type stackMappingEngine struct{ mappingEngine }

func (stackMappingEngine) StackMapper(m *manifest.Manifest) func(string) string {
	return func(line string) string { return strings.ReplaceAll(line, "exiting", "mapped: exiting") }
}

// A JS engine's StackMapper rewrites each stderr line before anything
// reads it: the journal's line and the crash's detail, which is read from
// the kept lines, both say the mapped text.
func TestJSEngineStackLinesAreMapped(t *testing.T) {
	tr := newTransport(t, Options{JS: stackMappingEngine{mappingEngine{fakeEngine{module: fixture(t, "reactor")}}}})
	var mu sync.Mutex
	var journal []string
	prog := launch(t, tr, specOf(jsManifest(t), transport.LaunchSpec{Stderr: func(line string) {
		mu.Lock()
		defer mu.Unlock()
		journal = append(journal, line)
	}}))
	conn := connect(t, prog, nil)
	go conn.Call(context.Background(), "exit", 1000)
	<-prog.Done()
	want := transport.Exit{Kind: transport.Trapped, Detail: "mapped: exiting with 1000"}
	if diff := cmp.Diff(want, prog.Exit()); diff != "" {
		t.Errorf("exit (-want +got):\n%s", diff)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(journal, "mapped: exiting with 1000") {
		t.Errorf("stderr lines handed on: %q", journal)
	}
}
