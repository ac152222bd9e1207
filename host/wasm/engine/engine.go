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
	"errors"
	"runtime/debug"

	"github.com/samyfodil/wazy"
	"github.com/samyfodil/wazy/api"
	"github.com/samyfodil/wazy/imports/wasi_snapshot_preview1"
	"github.com/samyfodil/wazy/sys"
)

// Name and Version say which runtime compiled a module: the compile
// cache of a host is kept per runtime and version, so code compiled by
// one is never read back by another. Version is read from the binary's
// build information, so that it is the runtime this binary was built
// with, not a copy of go.mod that an update could forget.
const Name = "wazy"

// Version is the runtime's module version ("v0.7.0"; with a replacement,
// the replacement's). A binary that carries no module list (a test
// binary) gives requiredVersion, which a test holds to go.mod.
var Version = runtimeVersion()

// runtimeModule is the module path of the runtime behind this package,
// requiredVersion the version go.mod requires.
const (
	runtimeModule   = "github.com/samyfodil/wazy"
	requiredVersion = "v0.7.0"
)

func runtimeVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return requiredVersion
	}
	for _, dep := range info.Deps {
		if dep.Path != runtimeModule {
			continue
		}
		if dep.Replace != nil {
			dep = dep.Replace
		}
		if dep.Version == "" {
			// Replaced by a folder, which has no version: a build of a
			// local runtime shares one cache folder, and who edits the
			// runtime clears it.
			return "local"
		}
		return dep.Version
	}
	return requiredVersion
}

// AlwaysChecks says that compiled code always checks, at function entries
// and loop back-edges, whether its context is done: with it, a runtime
// made with checks=false checks all the same. wazy's compiled code tests
// Go's own preemption word there, which a done context sets, so the check
// has no option to turn off and costs about nothing.
const AlwaysChecks = true

// The runtime's types.
type (
	Runtime          = wazy.Runtime
	RuntimeConfig    = wazy.RuntimeConfig
	CompiledModule   = wazy.CompiledModule
	CompilationCache = wazy.CompilationCache
	ModuleConfig     = wazy.ModuleConfig
	FSConfig         = wazy.FSConfig

	Module             = api.Module
	Function           = api.Function
	Global             = api.Global
	FunctionDefinition = api.FunctionDefinition
	ValueType          = api.ValueType
	GoModuleFunction   = api.GoModuleFunction
	GoModuleFunc       = api.GoModuleFunc

	// ExitError is how a call ends on proc_exit or on a closed instance.
	// A call whose context is done ends as ContextEnded says.
	ExitError = sys.ExitError

	LinearMemory    = api.LinearMemory
	MemoryAllocator = api.MemoryAllocator

	// Errno, Pflag and the constants below are what a custom stdin
	// returns and polls with (its Read and its Poll).
	Errno = sys.Errno
	Pflag = sys.Pflag
)

const (
	ValueTypeI32 = api.ValueTypeI32

	ExitCodeDeadlineExceeded = sys.ExitCodeDeadlineExceeded
	ExitCodeContextCanceled  = sys.ExitCodeContextCanceled

	EAGAIN  = sys.EAGAIN
	ENOTSUP = sys.ENOTSUP
	POLLIN  = sys.POLLIN
)

// WASIModuleName is the module name of WASI preview 1's functions.
const WASIModuleName = wasi_snapshot_preview1.ModuleName

// NewRuntimeConfig is the compiler's configuration. checks asks for
// modules that stop at their next check once their call's context is
// done, which is what lets the host end a runaway turn; on this runtime
// they always do (AlwaysChecks), so checks changes nothing.
func NewRuntimeConfig(checks bool) RuntimeConfig {
	_ = checks
	return wazy.NewRuntimeConfig()
}

// WithTableLimit bounds every table of the runtime's modules to entries:
// a table.grow past it fails (-1), as past a table's own maximum. false
// says the runtime has no such bound, and cfg is as it was.
func WithTableLimit(cfg RuntimeConfig, entries uint32) (RuntimeConfig, bool) {
	return cfg.WithTableLimitElements(entries), true
}

// WithEveryFeature is cfg with every feature of WebAssembly 3.0 on, tail
// calls and exceptions among them, which the host's runtimes leave off:
// for tests of what must hold of such modules all the same.
func WithEveryFeature(cfg RuntimeConfig) RuntimeConfig {
	return cfg.WithCoreFeatures(api.CoreFeaturesV3)
}

// NewRuntime makes a runtime of cfg.
func NewRuntime(ctx context.Context, cfg RuntimeConfig) Runtime {
	return wazy.NewRuntimeWithConfig(ctx, cfg)
}

// NewModuleConfig is an instance's configuration, with nothing in it.
func NewModuleConfig() ModuleConfig { return wazy.NewModuleConfig() }

// NewFSConfig is a file system with no mounts.
func NewFSConfig() FSConfig { return wazy.NewFSConfig() }

// NewCompilationCache keeps compiled code in memory.
func NewCompilationCache() CompilationCache { return wazy.NewCompilationCache() }

// NewCompilationCacheWithDir keeps compiled code in dir.
func NewCompilationCacheWithDir(dir string) (CompilationCache, error) {
	return wazy.NewCompilationCacheWithDir(dir)
}

// WithMemoryAllocator makes the instances instantiated with ctx take their
// linear memory from a.
func WithMemoryAllocator(ctx context.Context, a MemoryAllocator) context.Context {
	return api.WithMemoryAllocator(ctx, a)
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

// ContextEnded reports whether a call ended because its context was done
// (cancelled or past its deadline), whichever way the runtime says so:
// wazy returns the context's error wrapped as a trap, wazero an
// ExitError with a code of its own. The host maps it to its own exit
// (the turn limit, a kill), never to the runtime's words.
func ContextEnded(err error) bool {
	var exit *ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode() == ExitCodeDeadlineExceeded || exit.ExitCode() == ExitCodeContextCanceled
	}
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}
