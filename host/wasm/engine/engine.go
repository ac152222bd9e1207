// Package engine is the host's one door to its WebAssembly runtime: the
// only package that imports it. Everything else (host/wasm, jsrt, the
// test rigs) names the runtime's types and calls through here, so that
// changing the runtime, forward or back, is a change to this package
// alone (docs/RATIONALE.md says which runtime and why).
//
// The types are aliases of the runtime's own and the functions thin: the
// seam hides which runtime it is, not how a runtime is driven.
package engine

import (
	"context"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"
)

// Name and Version say which runtime compiled a module: the compile
// cache of a host is kept per runtime and version, so code compiled by
// one is never read back by another.
const (
	Name    = "wazero"
	Version = "v1.12.0"
)

// AlwaysChecks says that compiled code always checks, at function entries
// and loop back-edges, whether its context is done: with it, a runtime
// made with checks=false checks all the same.
const AlwaysChecks = false

// The runtime's types.
type (
	Runtime          = wazero.Runtime
	RuntimeConfig    = wazero.RuntimeConfig
	CompiledModule   = wazero.CompiledModule
	CompilationCache = wazero.CompilationCache
	ModuleConfig     = wazero.ModuleConfig
	FSConfig         = wazero.FSConfig

	Module             = api.Module
	Function           = api.Function
	FunctionDefinition = api.FunctionDefinition
	ValueType          = api.ValueType
	GoModuleFunction   = api.GoModuleFunction
	GoModuleFunc       = api.GoModuleFunc

	// ExitError is how a call ends on proc_exit, or on a closed or done
	// instance (ExitCodeDeadlineExceeded, ExitCodeContextCanceled).
	ExitError = sys.ExitError

	LinearMemory    = experimental.LinearMemory
	MemoryAllocator = experimental.MemoryAllocator

	// Errno, Pflag and the constants below are what a custom stdin
	// returns and polls with (its Read and its Poll).
	Errno = experimentalsys.Errno
	Pflag = experimentalsys.Pflag
)

const (
	ValueTypeI32 = api.ValueTypeI32

	ExitCodeDeadlineExceeded = sys.ExitCodeDeadlineExceeded
	ExitCodeContextCanceled  = sys.ExitCodeContextCanceled

	EAGAIN  = experimentalsys.EAGAIN
	ENOTSUP = experimentalsys.ENOTSUP
	POLLIN  = experimentalsys.POLLIN
)

// WASIModuleName is the module name of WASI preview 1's functions.
const WASIModuleName = wasi_snapshot_preview1.ModuleName

// NewRuntimeConfig is the compiler's configuration. checks compiles
// modules to stop at their next check once their call's context is done,
// which is what lets the host end a runaway turn.
func NewRuntimeConfig(checks bool) RuntimeConfig {
	return wazero.NewRuntimeConfig().WithCloseOnContextDone(checks)
}

// NewRuntime makes a runtime of cfg.
func NewRuntime(ctx context.Context, cfg RuntimeConfig) Runtime {
	return wazero.NewRuntimeWithConfig(ctx, cfg)
}

// NewModuleConfig is an instance's configuration, with nothing in it.
func NewModuleConfig() ModuleConfig { return wazero.NewModuleConfig() }

// NewFSConfig is a file system with no mounts.
func NewFSConfig() FSConfig { return wazero.NewFSConfig() }

// NewCompilationCache keeps compiled code in memory.
func NewCompilationCache() CompilationCache { return wazero.NewCompilationCache() }

// NewCompilationCacheWithDir keeps compiled code in dir.
func NewCompilationCacheWithDir(dir string) (CompilationCache, error) {
	return wazero.NewCompilationCacheWithDir(dir)
}

// WithMemoryAllocator makes the instances instantiated with ctx take their
// linear memory from a.
func WithMemoryAllocator(ctx context.Context, a MemoryAllocator) context.Context {
	return experimental.WithMemoryAllocator(ctx, a)
}

// ValueTypeName writes a value type as WebAssembly text does: "i32".
func ValueTypeName(t ValueType) string { return api.ValueTypeName(t) }

// CompileWASI compiles the runtime's WASI preview 1 host module.
func CompileWASI(ctx context.Context, r Runtime) (CompiledModule, error) {
	return wasi_snapshot_preview1.NewBuilder(r).Compile(ctx)
}

// MustInstantiateWASI instantiates the runtime's WASI preview 1 in r, as
// it is, for rigs and benchmarks that need nothing of the host's own.
func MustInstantiateWASI(ctx context.Context, r Runtime) {
	wasi_snapshot_preview1.MustInstantiate(ctx, r)
}
