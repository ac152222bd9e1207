package wasm

import (
	"context"
	"fmt"

	"github.com/escouade-dev/escouade-plugin/host/wasm/engine"
)

// Names of the host modules a module may import (docs/protocol.md#loading-and-compiling).
const (
	wasiModule = engine.WASIModuleName
	hostModule = "escouade"
)

// WASI flags and errno values the stdin overrides use.
const (
	fdStdin       = 0
	fdFlagAppend  = 1 << 0
	fdFlagNonblck = 1 << 2
	errnoSuccess  = 0
	fdstatFlagsAt = 2 // fs_flags (u16) in the 24-byte fdstat
)

// provided lists, per host module, the functions it exports with their
// signature: what a module's imports are checked against before it is
// compiled.
type provided map[string]map[string]engine.FunctionDefinition

// instantiateHostModules instantiates, in r, wasi_snapshot_preview1 and the
// host's own module "escouade", and returns what they provide.
//
// The WASI module is wazero's, function for function, except that fd 0's
// flags are the instance's stdin's: wazero gives a custom stdin reader no
// way to be non-blocking, and a Go program only polls a stdin whose
// fd_fdstat_get says FD_NONBLOCK (os.NewFile checks it). The functions are
// taken from the definitions of wazero's compiled host module and called
// with the guest's module, exactly as wazero calls them.
func instantiateHostModules(ctx context.Context, r engine.Runtime) (provided, error) {
	compiled, err := engine.CompileWASI(ctx, r)
	if err != nil {
		return nil, fmt.Errorf("compile WASI: %w", err)
	}
	defer compiled.Close(ctx)
	b := r.NewHostModuleBuilder(wasiModule)
	for name, def := range compiled.ExportedFunctions() {
		fn, ok := def.GoFunction().(engine.GoModuleFunction)
		if !ok {
			return nil, fmt.Errorf("WASI function %s is not a Go function", name)
		}
		switch name {
		case "fd_fdstat_get":
			fn = fdstatGet(fn)
		case "fd_fdstat_set_flags":
			fn = fdstatSetFlags(fn)
		}
		b.NewFunctionBuilder().
			WithGoModuleFunction(fn, def.ParamTypes(), def.ResultTypes()).
			WithParameterNames(def.ParamNames()...).
			WithResultNames(def.ResultNames()...).
			Export(name)
	}
	wasi, err := b.Compile(ctx)
	if err != nil {
		return nil, fmt.Errorf("compile WASI: %w", err)
	}
	if _, err := r.InstantiateModule(ctx, wasi, engine.NewModuleConfig().WithName(wasiModule)); err != nil {
		return nil, fmt.Errorf("instantiate WASI: %w", err)
	}
	own, err := r.NewHostModuleBuilder(hostModule).Compile(ctx)
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", hostModule, err)
	}
	if _, err := r.InstantiateModule(ctx, own, engine.NewModuleConfig().WithName(hostModule)); err != nil {
		return nil, fmt.Errorf("instantiate %s: %w", hostModule, err)
	}
	return provided{wasiModule: wasi.ExportedFunctions(), hostModule: own.ExportedFunctions()}, nil
}

// fdstatGet adds FD_NONBLOCK to fd 0's flags when the instance's stdin is
// non-blocking.
func fdstatGet(orig engine.GoModuleFunction) engine.GoModuleFunction {
	return engine.GoModuleFunc(func(ctx context.Context, mod engine.Module, stack []uint64) {
		fd, at := int32(stack[0]), uint32(stack[1])
		orig.Call(ctx, mod, stack)
		in := stdinOf(ctx)
		if fd != fdStdin || stack[0] != errnoSuccess || in == nil || !in.isNonblocking() {
			return
		}
		if flags, ok := mod.Memory().ReadUint16Le(at + fdstatFlagsAt); ok {
			mod.Memory().WriteUint16Le(at+fdstatFlagsAt, flags|fdFlagNonblck)
		}
	})
}

// fdstatSetFlags lets a command switch fd 0 between blocking and
// non-blocking; other flags, fds and a reactor's fd 0 go to wazero.
func fdstatSetFlags(orig engine.GoModuleFunction) engine.GoModuleFunction {
	return engine.GoModuleFunc(func(ctx context.Context, mod engine.Module, stack []uint64) {
		fd, flags := int32(stack[0]), uint16(stack[1])
		in := stdinOf(ctx)
		if fd != fdStdin || in == nil || flags&^(fdFlagNonblck|fdFlagAppend) != 0 || !in.setNonblocking(flags&fdFlagNonblck != 0) {
			orig.Call(ctx, mod, stack) // a reactor's: ENOSYS, as wazero says for any custom stdin
			return
		}
		stack[0] = errnoSuccess
	})
}

// stdinKey carries an instance's stdin in the context of its calls, for
// the WASI overrides, which wazero hands that context.
type stdinKey struct{}

func withStdin(ctx context.Context, in *stdin) context.Context {
	return context.WithValue(ctx, stdinKey{}, in)
}

func stdinOf(ctx context.Context) *stdin {
	in, _ := ctx.Value(stdinKey{}).(*stdin)
	return in
}
