package jsrt

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io/fs"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/escouade-dev/escouade-plugin/host/wasm/engine"
)

// The tests drive the engine module directly with wazero, with their own
// small turn loop: a non-blocking stdin buffer, escouade-budget, then
// escouade-turn, collecting stdout after each turn, as host/wasm does.

// engineRuntime is one wazero runtime with the engine compiled, shared by
// the tests of a configuration (compiling it is the slow part).
type engineRuntime struct {
	rt       engine.Runtime
	compiled engine.CompiledModule
}

var (
	runtimesMu sync.Mutex
	runtimes   = map[bool]*engineRuntime{}
)

// sharedRuntime compiles the engine once per closeOnDone setting.
func sharedRuntime(t testing.TB, closeOnDone bool) *engineRuntime {
	t.Helper()
	runtimesMu.Lock()
	defer runtimesMu.Unlock()
	if r := runtimes[closeOnDone]; r != nil {
		return r
	}
	r, err := newEngineRuntime(context.Background(), closeOnDone)
	if err != nil {
		t.Fatal(err)
	}
	runtimes[closeOnDone] = r
	return r
}

func newEngineRuntime(ctx context.Context, closeOnDone bool) (*engineRuntime, error) {
	cfg := engine.NewRuntimeConfig(closeOnDone).WithMemoryLimitPages(1024)
	rt := engine.NewRuntime(ctx, cfg)
	engine.MustInstantiateWASI(ctx, rt)
	wasm := New().Module()
	// ESCOUADE_JSRT_WASM runs the tests and benchmarks on another build of
	// the engine (to compare build flags).
	if f := os.Getenv("ESCOUADE_JSRT_WASM"); f != "" {
		var err error
		if wasm, err = os.ReadFile(f); err != nil {
			return nil, err
		}
	}
	compiled, err := rt.CompileModule(ctx, wasm)
	if err != nil {
		rt.Close(ctx)
		return nil, err
	}
	return &engineRuntime{rt: rt, compiled: compiled}, nil
}

// stdinBuffer never blocks: an empty buffer reads as 0 bytes.
type stdinBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *stdinBuffer) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.buf.Len() == 0 {
		return 0, nil
	}
	return b.buf.Read(p)
}

func (b *stdinBuffer) WriteLine(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.WriteString(s)
	b.buf.WriteByte('\n')
}

// instance is one engine instance running a bundle.
type instance struct {
	t      testing.TB
	mod    engine.Module
	turn   engine.Function
	budget engine.Function
	stdin  *stdinBuffer
	stdout bytes.Buffer
	stderr lockedBuffer
	ended  error // the call error that ended it (a *engine.ExitError, a trap)
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// instanceOptions are what a test changes about an instance.
type instanceOptions struct {
	plugin fs.FS // mounted at /plugin; empty by default
	rel    string
	// unguarded runs the instance on a runtime without
	// WithCloseOnContextDone, to measure what the guard costs; the host's
	// runtime has it (see docs/RATIONALE.md).
	unguarded bool
	ctx       context.Context
	// bytecode mounts the bytecode of runtime.js and of the bundle, made
	// by the engine's compile export, beside their sources.
	bytecode bool
}

// start instantiates the engine with src as the bundle and runs its first
// turn (the bundle's top level).
func start(t testing.TB, src string, o instanceOptions) *instance {
	t.Helper()
	in := launch(t, src, o)
	in.runTurn(o.ctx)
	return in
}

func launch(t testing.TB, src string, o instanceOptions) *instance {
	t.Helper()
	if o.rel == "" {
		o.rel = "dist/plugin.mjs"
	}
	bundle := BundleFS([]byte(src), o.rel)
	if o.bytecode {
		bundle = withBytecode(t, sharedRuntime(t, !o.unguarded), bundle)
	}
	return launchFiles(t, bundle, o)
}

// launchFiles instantiates the engine with bundle mounted at /bundle.
func launchFiles(t testing.TB, bundle fs.FS, o instanceOptions) *instance {
	t.Helper()
	if o.ctx == nil {
		o.ctx = context.Background()
	}
	if o.plugin == nil {
		o.plugin = fstest.MapFS{}
	}
	r := sharedRuntime(t, !o.unguarded)
	in := &instance{t: t, stdin: &stdinBuffer{}}
	fsc := engine.NewFSConfig().
		WithFSMount(bundle, BundleMount).
		WithFSMount(o.plugin, PluginMount)
	cfg := engine.NewModuleConfig().
		WithName("").
		WithStdin(in.stdin).WithStdout(&in.stdout).WithStderr(&in.stderr).
		WithFSConfig(fsc).
		WithSysNanotime().WithSysWalltime().WithSysNanosleep().
		WithRandSource(rand.Reader).
		WithStartFunctions()
	mod, err := r.rt.InstantiateModule(o.ctx, r.compiled, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mod.Close(context.Background()) })
	if _, err := mod.ExportedFunction("_initialize").Call(o.ctx); err != nil {
		t.Fatal(err)
	}
	in.mod = mod
	in.turn = mod.ExportedFunction(ExportTurn)
	in.budget = mod.ExportedFunction(ExportBudget)
	return in
}

// runTurn runs one turn and returns what the instance wrote on stdout.
func (in *instance) runTurn(ctx context.Context) string {
	in.t.Helper()
	if in.ended != nil {
		in.t.Fatalf("turn on an instance that ended: %v", in.ended)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	in.stdout.Reset()
	if _, err := in.turn.Call(ctx); err != nil {
		in.ended = err
	}
	return in.stdout.String()
}

// send appends lines to stdin and runs a turn.
func (in *instance) send(lines ...string) string {
	in.t.Helper()
	for _, l := range lines {
		in.stdin.WriteLine(l)
	}
	return in.runTurn(nil)
}

func (in *instance) setBudget(ms uint32) {
	in.t.Helper()
	if _, err := in.budget.Call(context.Background(), uint64(ms)); err != nil {
		in.t.Fatal(err)
	}
}

// exitCode is the proc_exit code the instance ended with, or -1.
func (in *instance) exitCode() int {
	var ee *engine.ExitError
	if errors.As(in.ended, &ee) {
		return int(ee.ExitCode())
	}
	return -1
}

func (in *instance) stderrLines() []string {
	return strings.Split(strings.TrimSuffix(in.stderr.String(), "\n"), "\n")
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, r := range runtimes {
		r.rt.Close(context.Background())
	}
	os.Exit(code)
}
