// Package reactortest runs a plugin's WASI reactor module the way the
// host's module transport does (docs/protocol.md#turns), for the tests of the
// Go kit and of the examples built with it: stdin is a buffer the test
// appends whole lines to and whose reads never block (an empty buffer
// reads as 0 bytes, or EAGAIN), each Turn calls escouade-turn and returns
// what the module wrote to stdout meanwhile, _initialize runs once, the
// plugin folder's root JSON files can be mounted read-only at /plugin,
// and memory is capped at 64 MB.
//
//	rt := reactortest.NewRuntime(ctx)
//	defer rt.Close(ctx)
//	code, err := rt.Compile(ctx, "plugin.wasm")
//	mod, err := code.Start(ctx, reactortest.Options{Stderr: os.Stderr})
//	mod.Append([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize"}` + "\n"))
//	out, err := mod.Turn(ctx)
//
// Host drives a program through a Wire, a module's (turns) or a stream's
// (a process's pipes, a transport's Program), so one test can check that
// both builds of a source answer alike.
package reactortest

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"

	"github.com/escouade-dev/escouade-plugin/host/wasm/engine"
)

// TurnExport is the reactor's turn function.
const TurnExport = "escouade-turn"

// memoryPages is the 64 MB limit of docs/protocol.md#limits in pages of 64 KiB.
const memoryPages = 64 << 20 >> 16

// Build builds the Go package pkg (an import path or a folder) as a
// reactor module into the file out, with the toolchain that runs the tests.
func Build(pkg, out string) error {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	cmd := exec.Command(goTool, "build", "-buildmode=c-shared", "-o", out, pkg)
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared %s: %v\n%s", pkg, err, b)
	}
	return nil
}

// Runtime compiles and runs modules; one serves a whole test binary, so a
// module is compiled once.
type Runtime struct {
	rt engine.Runtime
}

// NewRuntime returns a runtime with the WASI preview 1 functions and the
// 64 MB memory limit.
func NewRuntime(ctx context.Context) *Runtime {
	cfg := engine.NewRuntimeConfig(true).WithMemoryLimitPages(memoryPages)
	rt := engine.NewRuntime(ctx, cfg)
	engine.MustInstantiateWASI(ctx, rt)
	return &Runtime{rt: rt}
}

// Close closes every module of the runtime.
func (r *Runtime) Close(ctx context.Context) error { return r.rt.Close(ctx) }

// Code is a compiled module.
type Code struct {
	rt   *Runtime
	code engine.CompiledModule
}

// Compile compiles the module in the file path.
func (r *Runtime) Compile(ctx context.Context, path string) (*Code, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	code, err := r.rt.CompileModule(ctx, b)
	if err != nil {
		return nil, err
	}
	return &Code{rt: r, code: code}, nil
}

// Options configure one instance.
type Options struct {
	// PluginDir, when set, is mounted read-only at /plugin. The test puts
	// in it what the host would: the plugin's root JSON files only.
	PluginDir string
	// Stderr receives what the module writes on stderr; nil discards it.
	Stderr io.Writer
	// EAGAIN makes a read of an empty stdin fail with EAGAIN instead of
	// reading 0 bytes: a module must take both as "nothing more now".
	EAGAIN bool
}

// Module is one instance of a reactor.
type Module struct {
	in       *stdin
	out      bytes.Buffer // written by the module only during a turn
	turnFunc interface {
		Call(ctx context.Context, params ...uint64) ([]uint64, error)
	}
	close func(context.Context) error
}

// Start instantiates the module, running _initialize.
func (c *Code) Start(ctx context.Context, o Options) (*Module, error) {
	m := &Module{in: &stdin{eagain: o.EAGAIN, appended: make(chan struct{}, 1)}}
	stderr := o.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	fsConfig := engine.NewFSConfig()
	if o.PluginDir != "" {
		fsConfig = fsConfig.WithReadOnlyDirMount(o.PluginDir, "/plugin")
	}
	cfg := engine.NewModuleConfig().WithName("").
		WithStdin(m.in).WithStdout(&m.out).WithStderr(stderr).
		WithFSConfig(fsConfig).WithRandSource(rand.Reader).
		WithSysWalltime().WithSysNanotime().WithSysNanosleep().
		WithStartFunctions("_initialize")
	mod, err := c.rt.rt.InstantiateModule(ctx, c.code, cfg)
	if err != nil {
		return nil, err
	}
	turn := mod.ExportedFunction(TurnExport)
	if turn == nil {
		mod.Close(ctx)
		return nil, fmt.Errorf("the module exports no %s", TurnExport)
	}
	m.turnFunc = turn
	m.close = mod.Close
	return m, nil
}

// Append adds bytes, whole lines, to the module's stdin. It is safe to
// call at any time, from any goroutine: what comes during a turn is read
// by that turn or the next.
func (m *Module) Append(b []byte) { m.in.append(b) }

// Appended has a value once bytes were appended since the last turn
// began.
func (m *Module) Appended() <-chan struct{} { return m.in.appended }

// Unread reports how many appended bytes the module has not read.
func (m *Module) Unread() int { return m.in.unread() }

// Turn calls escouade-turn and returns what the module wrote to stdout
// during it. An error is the instance ending (a *engine.ExitError for
// proc_exit) or trapping; what it wrote before is still returned. Turns
// must not overlap.
func (m *Module) Turn(ctx context.Context) ([]byte, error) {
	m.in.startTurn()
	_, err := m.turnFunc.Call(ctx)
	out := bytes.Clone(m.out.Bytes())
	m.out.Reset()
	return out, err
}

// Close ends the instance.
func (m *Module) Close(ctx context.Context) error { return m.close(ctx) }

// stdin is a module's stdin: reads never block.
type stdin struct {
	mu       sync.Mutex
	buf      bytes.Buffer
	eagain   bool
	appended chan struct{}
}

func (s *stdin) append(b []byte) {
	s.mu.Lock()
	s.buf.Write(b)
	s.mu.Unlock()
	select {
	case s.appended <- struct{}{}:
	default:
	}
}

// startTurn takes the signal of bytes appended so far: the turn reads them.
func (s *stdin) startTurn() {
	select {
	case <-s.appended:
	default:
	}
}

func (s *stdin) unread() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Len()
}

func (s *stdin) Read(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.buf.Len() == 0 {
		if s.eagain {
			return 0, syscall.EAGAIN
		}
		return 0, nil
	}
	return s.buf.Read(p)
}
