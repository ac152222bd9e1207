package wasm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/escouade-dev/escouade-plugin/host/wasm/engine"
	"github.com/escouade-dev/escouade-plugin/internal/safefile"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/protocol"
)

// Files of a run.wasm plugin (docs/protocol.md#loading-and-compiling).
const (
	// ModuleFile is the module beside the manifest.
	ModuleFile = "plugin.wasm"
	// VersionFile, at the root of a plugin from the store, holds the
	// module's SHA-256 in hex: {"sha256": "<64 hex digits>"}. The host
	// checks it before compiling.
	VersionFile = "version.json"
)

// The largest files of a run.wasm plugin the host reads (docs/protocol.md#loading-and-compiling):
// bigger ones are refused unread, with a sentence naming the limit.
const (
	// MaxModuleBytes bounds plugin.wasm: a module runs in 64 MiB of
	// memory, and the largest real ones (a Go program with its runtime)
	// are a few MiB.
	MaxModuleBytes = protocol.ModuleBytes
	// MaxVersionFileBytes bounds version.json, which holds one hash.
	MaxVersionFileBytes = protocol.VersionFileBytes
)

// module is a compiled module, compiled once per Transport.
type module struct {
	ready    chan struct{} // closed once compiled or failed
	err      error
	compiled engine.CompiledModule
	shape    shape
	rt       *engineRuntime
	users    int    // plugin folders whose module it is now
	hash     string // the SHA-256 of the bytes it was compiled from, in hex
}

// moduleKey tells compiled modules apart: by their bytes' SHA-256, per
// runtime (the JS engine's may be another).
type moduleKey struct {
	hash string
	rt   *engineRuntime
}

// source is what a manifest runs: a module's bytes, on a runtime.
type source struct {
	name  string // for progress lines: "plugin.wasm", "the JS engine"
	bytes []byte
	hash  string // the bytes' SHA-256, in hex
	rt    *engineRuntime
	// trusted is the host's own module (the JS engine), compiled in
	// process: a plugin's is compiled under the bounds (compilebound.go).
	trusted bool
	// ownStack says the module bounds its native stack itself: the JS
	// engine, the host's own code, whose recursion ends at its 1 MB C
	// stack (docs/RATIONALE.md#how-is-a-modules-native-stack-bounded). Any
	// other module gets the host's bound (stack.go).
	ownStack bool
}

// module returns the plugin's compiled module, compiling it the first
// time its bytes are seen. checked is the digest of plugin.wasm the
// start's consent check found ("" for a start no check came before).
func (t *Transport) module(ctx context.Context, m *manifest.Manifest, checked string, progress func(string)) (*module, error) {
	if mod := t.held(m, checked); mod != nil {
		return mod, nil
	}
	src, err := t.source(m)
	if err != nil {
		return nil, err
	}
	key := moduleKey{hash: src.hash, rt: src.rt}
	mod, fresh, err := t.entry(m.Dir, key)
	if err != nil {
		return nil, err
	}
	if fresh {
		t.compile(ctx, mod, src, progress)
	}
	select {
	case <-mod.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if mod.err != nil {
		t.forget(key, mod)
		return nil, mod.err
	}
	return mod, nil
}

// held is the module this transport already compiled from the bytes m's
// plugin.wasm has: a restart, a start after Precompile (the host's
// warm-up, modules.Preload), or another folder of the same module. Such a
// start reads no 4 MB into fresh memory and decodes nothing again. The
// bytes are known by the digest the start's consent check just read of
// the file (checked): what runs is then the module compiled from exactly
// the bytes the person consented to, whatever the file holds a moment
// later. With no check before the start, the file is hashed as it streams
// by. Any doubt (bytes not held, version.json not agreeing, a module that
// failed) returns nil, and the start reads the file whole, as a first one
// does, to say why; Launch holds what it read to the check's digest.
func (t *Transport) held(m *manifest.Manifest, checked string) *module {
	if m.Run.Kind() != manifest.RunWASM || !t.holdsModules() {
		return nil
	}
	hash := checked
	if hash == "" {
		var err error
		if hash, err = safefile.SHA256(filepath.Join(m.Dir, ModuleFile), ModuleFile, MaxModuleBytes); err != nil {
			return nil
		}
	}
	if checkVersionFile(m.Dir, hash) != nil {
		return nil
	}
	return t.reuse(m.Dir, moduleKey{hash: hash, rt: t.rt})
}

// holdsModules says whether any module is compiled here: a first start
// then hashes its file once, not twice.
func (t *Transport) holdsModules() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.modules) > 0
}

// reuse is the module of key when it compiled well, made the module of
// the plugin folder dir as entry makes it; nil when it is not here.
func (t *Transport) reuse(dir string, key moduleKey) *module {
	t.mu.Lock()
	defer t.mu.Unlock()
	mod := t.modules[key]
	if t.closed || mod == nil || !compiledWell(mod) {
		return nil
	}
	t.useLocked(dir, key, mod)
	return mod
}

// compiledWell says mod is compiled and passed its checks.
func compiledWell(mod *module) bool {
	select {
	case <-mod.ready:
		return mod.err == nil
	default:
		return false
	}
}

// source reads the module a manifest runs and hashes it, once: the one
// SHA-256 of its bytes is version.json's check, the compiled module's key
// and the pre-pass mark's name (hashing 4 MB again cost a start 10 ms).
func (t *Transport) source(m *manifest.Manifest) (source, error) {
	switch m.Run.Kind() {
	case manifest.RunWASM:
		t.read.Add(1)
		b, err := safefile.Read(filepath.Join(m.Dir, ModuleFile), ModuleFile, MaxModuleBytes)
		if errors.Is(err, fs.ErrNotExist) {
			return source{}, fmt.Errorf("its folder has no %s", ModuleFile)
		} else if err != nil {
			return source{}, err // a sentence that names the file
		}
		hash := digest(b)
		if err := checkVersionFile(m.Dir, hash); err != nil {
			return source{}, err
		}
		if err := checkWebAssembly(b); err != nil {
			return source{}, err
		}
		return source{name: ModuleFile, bytes: b, hash: hash, rt: t.rt}, nil
	case manifest.RunJS:
		if t.o.JS == nil {
			return source{}, errors.New("this Escouade has no JS engine to run run.js")
		}
		return source{name: "the JS engine", bytes: t.o.JS.Module(), hash: t.jsDigest(), rt: t.js, trusted: true, ownStack: true}, nil
	}
	return source{}, fmt.Errorf("its program is not a module (run is %q)", m.Run.Kind())
}

// checkVersionFile compares the module's SHA-256 (hex) with the one of
// version.json, when the plugin has one.
func checkVersionFile(dir, got string) error {
	b, err := safefile.Read(filepath.Join(dir, VersionFile), VersionFile, MaxVersionFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return err // a sentence that names the file
	}
	var v struct {
		SHA256 string `json:"sha256"`
	}
	if err := json.Unmarshal(b, &v); err != nil || v.SHA256 == "" {
		return fmt.Errorf(`%s does not hold {"sha256": "<hex>"}`, VersionFile)
	}
	if want := strings.ToLower(v.SHA256); want != got {
		return fmt.Errorf("%s does not match %s: its SHA-256 is %s, %s says %s", ModuleFile, VersionFile, got, VersionFile, want)
	}
	return nil
}

// entry finds or makes the module of key, and makes it the module of the
// plugin folder dir; a module no folder uses any more is closed. fresh
// says the caller is to compile it.
func (t *Transport) entry(dir string, key moduleKey) (mod *module, fresh bool, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, false, ErrClosed
	}
	mod, ok := t.modules[key]
	if !ok {
		mod = &module{ready: make(chan struct{}), rt: key.rt, hash: key.hash}
		t.modules[key] = mod
		fresh = true
	}
	t.useLocked(dir, key, mod)
	return mod, fresh, nil
}

// useLocked makes mod, the module of key, the module of the plugin folder
// dir, releasing the one it had.
func (t *Transport) useLocked(dir string, key moduleKey, mod *module) {
	if old, had := t.current[dir]; !had || old != key {
		t.current[dir] = key
		mod.users++
		if had {
			t.releaseLocked(old)
		}
	}
}

// releaseLocked drops a folder's use of a module and closes it when none
// is left. Instances of it keep running (wazero allows closing a compiled
// module under them).
func (t *Transport) releaseLocked(key moduleKey) {
	mod := t.modules[key]
	if mod == nil {
		return
	}
	if mod.users--; mod.users > 0 {
		return
	}
	delete(t.modules, key)
	go func() {
		<-mod.ready
		if mod.compiled != nil {
			_ = mod.compiled.Close(context.Background())
		}
	}()
}

// forget drops a module that failed, so a fixed plugin compiles again.
func (t *Transport) forget(key moduleKey, mod *module) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.modules[key] == mod {
		delete(t.modules, key)
		for dir, k := range t.current {
			if k == key {
				delete(t.current, dir)
			}
		}
	}
}

// compile compiles src into mod and checks it, saying so through progress
// when it lasts past Options.ProgressAfter.
func (t *Transport) compile(ctx context.Context, mod *module, src source, progress func(string)) {
	defer close(mod.ready)
	t.compiles.Add(1)
	checked := t.bodiesChecked(src.hash)
	if src.bytes, mod.err = t.rewritten(src, checked); mod.err != nil {
		return
	}
	if !checked && t.o.CacheDir != "" && t.o.FirstCompile != nil {
		began := time.Now()
		t.o.FirstCompile(firstCompileLine(src))
		defer func() {
			if mod.err == nil {
				t.o.FirstCompile(fmt.Sprintf("compiled %s in %s; it is kept in the compile cache, and the next start reads it back", src.name, spentText(time.Since(began))))
			}
		}()
	}
	cm, err := t.compileShowing(ctx, src, checked, progress)
	var bound *compileBoundError
	if errors.As(err, &bound) || ctx.Err() != nil {
		mod.err = err
		return
	} else if err != nil {
		mod.err = fmt.Errorf("its module does not compile: %s", firstLine(err.Error()))
		return
	}
	if mod.shape, mod.err = checkModule(cm, src.rt.have, t.o.Memory); mod.err != nil {
		_ = cm.Close(ctx)
		return
	}
	mod.compiled = cm
	if src.trusted || !t.o.CompileInProcess {
		t.rememberChecked(src.hash) // a mark skips the compile's bounds: not for a plugin's module compiled without them
	}
}

// rewritten is src's bytes as they are compiled: held to the host's
// bounds again (bounds.go) and, unless the module bounds its own stack,
// given its stack budget (stack.go). The compile cache is keyed by these
// bytes, so the child and the host compile the same.
func (t *Transport) rewritten(src source, checked bool) ([]byte, error) {
	b, err := boundedAgain(src.bytes, t.o.Memory, checked, src.rt.tablesLimited)
	if err != nil || src.ownStack {
		return b, err
	}
	return t.stackRewritten(src, b)
}

// compileShowing compiles src; past Options.ProgressAfter it says what it
// compiles, then, once done, how long it took.
func (t *Transport) compileShowing(ctx context.Context, src source, checked bool, progress func(string)) (engine.CompiledModule, error) {
	type result struct {
		cm  engine.CompiledModule
		err error
	}
	done := make(chan result, 1)
	began, cached := time.Now(), t.cacheEntries()
	go func() {
		cm, err := t.compileBounded(ctx, src, checked)
		done <- result{cm, err}
	}()
	slow := time.NewTimer(t.o.ProgressAfter)
	defer slow.Stop()
	select {
	case r := <-done:
		return r.cm, r.err
	case <-slow.C:
	}
	if progress != nil {
		progress(preparingLine(src))
	}
	r := <-done
	if progress != nil && r.err == nil {
		progress(t.preparedLine(src, cached, time.Since(began)))
	}
	return r.cm, r.err
}

// compileBounded compiles src, a plugin's module in a child under the
// compile bounds first (compilebound.go), then in this process, which
// reads the child's code from the cache.
func (t *Transport) compileBounded(ctx context.Context, src source, checked bool) (engine.CompiledModule, error) {
	if t.compileIsolated(src, checked) {
		if err := t.compileInChild(ctx, src); err != nil && !errors.Is(err, errNoChild) {
			return nil, err
		}
	}
	return src.rt.r.CompileModule(ctx, src.bytes)
}

func sizeText(n int) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d KB", (n+1023)>>10)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
