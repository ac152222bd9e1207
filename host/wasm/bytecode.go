package wasm

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/escouade-dev/escouade-plugin/host/wasm/engine"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// BytecodeEngine is an Engine that keeps its bundles' compiled form in a
// folder of the host's (package jsrt's does: QuickJS bytecode of its
// runtime and of the bundle, which a start reads instead of parsing them).
type BytecodeEngine interface {
	Engine
	// CachedBundle is Bundle with the bytecode from dir, made the first
	// time by compile: an instance of the engine's module running
	// compileExport on the bundle's files, outside any plugin turn, whose
	// stdout compile returns.
	CachedBundle(m *manifest.Manifest, dir string, compile func(bundle fs.FS) ([]byte, error)) (fs.FS, error)
}

// compileExport is the engine's export that writes the bytecode.
const compileExport = "escouade-compile"

// maxCompileOutput bounds what a compile instance may write; package
// jsrt refuses more than this anyway (jsrt.MaxBytecodeBytes).
const maxCompileOutput = 48 << 20

// BytecodeFolder is where the JS engine's bytecode is kept under a cache
// folder, per host version: beside the compiled code's folders, not in
// them, since it is not compiled code. A cache file also stands for the
// bundle's check; its name holds the identity of the check's rules, so
// builds sharing a version but not those rules do not share verdicts.
func BytecodeFolder(cacheDir, hostVersion string) string {
	return filepath.Join(cacheDir, "js-bytecode", filepath.Base(CacheFolder(cacheDir, hostVersion)))
}

// bundleFiles is the /bundle of a run.js plugin: with its bytecode when
// the engine keeps some and the host has a cache on disk.
func (t *Transport) bundleFiles(ctx context.Context, m *manifest.Manifest, g guest, mod *module) (fs.FS, error) {
	be, ok := g.engine.(BytecodeEngine)
	if !ok || t.o.CacheDir == "" {
		return g.engine.Bundle(m)
	}
	return be.CachedBundle(m, BytecodeFolder(t.o.CacheDir, t.o.HostVersion), func(bundle fs.FS) ([]byte, error) {
		return t.compileBundle(ctx, mod, bundle)
	})
}

// bytecodeFile is the cache file of the bytecode in bundle, "" if none.
func bytecodeFile(bundle fs.FS) string {
	if c, ok := bundle.(interface{ BytecodeFile() string }); ok {
		return c.BytecodeFile()
	}
	return ""
}

// dropBytecode removes the cache file an instance started from when its
// start ended it: bytecode that QuickJS wrote but cannot read back (a
// round-trip bug of JS_ReadObject, an import that no longer resolves)
// would otherwise end every later start the same way; without the file
// the next start compiles from the source and writes it again. From here
// a bytecode that does not load cannot be told from a bundle whose top
// level throws, so such a bundle is compiled again at its next start too;
// a plugin that exits by itself, or one the host ended, keeps its file.
func (i *instance) dropBytecode(exit transport.Exit) {
	if i.bytecode == "" || exit.Kind == transport.Exited || exit.Kind == transport.Ended {
		return
	}
	if err := os.Remove(i.bytecode); err == nil {
		journalOf(i.spec)(fmt.Sprintf("the bytecode file %s is dropped: the start from it ended (%s); the next start compiles the bundle from its source", filepath.Base(i.bytecode), exit.Error()))
	}
}

// precompileBundle keeps a run.js plugin's bytecode in the cache, for
// install and build; a module of its own has none.
func (t *Transport) precompileBundle(ctx context.Context, m *manifest.Manifest, mod *module) error {
	g := t.guestOf(m)
	if !g.bundle() {
		return nil
	}
	_, err := t.bundleFiles(ctx, m, g, mod)
	return err
}

// compileBundle runs the engine's compile export on bundle in an instance
// of its own, within the start's limit and the instance memory limit, and
// returns what it wrote on stdout. No code of the bundle runs: the engine
// only compiles it.
func (t *Transport) compileBundle(ctx context.Context, mod *module, bundle fs.FS) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the compile instance did not start: %v", r)
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, t.o.StartLimit)
	defer cancel()
	ctx = engine.WithMemoryAllocator(ctx, memoryAllocator{limit: t.o.Memory, refused: func(uint64) {}})
	stdout := &cappedBuffer{limit: maxCompileOutput}
	cfg := engine.NewModuleConfig().
		WithName("").
		WithStartFunctions().
		WithStdout(stdout).WithStderr(io.Discard).
		WithFSConfig(engine.NewFSConfig().WithFSMount(bundle, BundleMount)).
		WithSysNanotime().
		WithRandSource(rand.Reader)
	inst, err := mod.rt.r.InstantiateModule(ctx, mod.compiled, cfg)
	if err != nil {
		return nil, err
	}
	defer inst.Close(context.Background())
	for _, name := range []string{initializeExport, compileExport} {
		fn := inst.ExportedFunction(name)
		if fn == nil {
			return nil, fmt.Errorf("the JS engine has no %s export", name)
		}
		if _, err := fn.Call(ctx); err != nil {
			return nil, err
		}
	}
	if stdout.over {
		return nil, errors.New("the compile wrote more than its limit")
	}
	return stdout.buf, nil
}

// cappedBuffer keeps at most limit bytes and says whether more came.
type cappedBuffer struct {
	buf   []byte
	limit int
	over  bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if len(b.buf)+len(p) > b.limit {
		b.over = true
		return 0, errors.New("past the limit")
	}
	b.buf = append(b.buf, p...)
	return len(p), nil
}
