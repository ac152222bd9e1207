package wasm

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/escouade-dev/escouade-plugin/host/wasm/engine"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// Mount points of an instance's file system.
const (
	// PluginMount holds the plugin's root JSON files (docs/protocol.md#files-of-its-folder).
	PluginMount = "/plugin"
	// BundleMount holds a run.js plugin's bundle, for the JS engine.
	BundleMount = "/bundle"
)

// Launch starts an instance of the plugin's module: compiled if it is not
// yet, its files snapshot, instantiated on a goroutine of its own. An
// error says why it cannot run, as the journal's stop reason does ("its
// module imports env.foo, which Escouade does not provide"). Cancelling
// ctx ends the instance.
func (t *Transport) Launch(ctx context.Context, spec transport.LaunchSpec) (transport.Program, error) {
	if spec.Dir == "" {
		return nil, errors.New("no plugin folder to launch")
	}
	m := manifestOf(spec)
	journal := journalOf(spec)
	mod, err := t.module(ctx, m, spec.Program[ModuleFile], journal)
	if err != nil {
		return nil, err
	}
	if want, ok := spec.Program[ModuleFile]; ok && m.Run.Kind() == manifest.RunWASM && mod.hash != want {
		return nil, fmt.Errorf("%s changed between the start's check of what you consented to and its read: not run", ModuleFile)
	}
	g := t.guestOf(m)
	fsc, bytecode, err := t.mounts(ctx, m, g, mod, spec.Program, journal)
	if err != nil {
		return nil, err
	}
	n := t.nextID()
	i := newInstance(t, mod, g, spec, g.stderrMapper(m), n)
	i.bytecode = bytecode
	cfg := i.config(fmt.Sprintf("%s#%d", m.ID, n), g.argv0(), fsc)
	if !t.track(i) {
		return nil, ErrClosed
	}
	started := make(chan error, 1)
	go i.run(ctx, cfg, started)
	if err := <-started; err != nil {
		return nil, err
	}
	return i, nil
}

// manifestOf is what this transport reads of the plugin's manifest, from
// the seam's terms: its id, its folder and its run. The transport's own
// readers (the module's source, the JS engine's bundle and source map,
// Precompile, which install calls with the manifest it loaded) speak of a
// manifest; the seam does not.
func manifestOf(spec transport.LaunchSpec) *manifest.Manifest {
	m := &manifest.Manifest{ID: spec.Name, Dir: spec.Dir}
	switch manifest.RunKind(spec.Kind) {
	case manifest.RunWASM:
		// run.wasm names what a module is built from; what runs is
		// always ModuleFile.
		m.Run = &manifest.Run{WASM: ModuleFile}
	case manifest.RunJS:
		m.Run = &manifest.Run{JS: spec.File}
	case manifest.RunProcess:
		m.Run = &manifest.Run{Command: spec.Command}
	}
	return m
}

// config is what the instance's module gets (docs/protocol.md#loading-and-compiling): its stdio,
// its files, the real clocks, the host's CSPRNG, one argument, no
// environment; no start function, since the instance's goroutine calls
// _initialize or _start itself.
func (i *instance) config(name, arg0 string, fsc engine.FSConfig) engine.ModuleConfig {
	return engine.NewModuleConfig().
		WithName(name).
		WithArgs(arg0).
		WithStartFunctions().
		WithStdin(i.in).WithStdout(i.out).WithStderr(i.errs).
		WithFSConfig(fsc).
		WithSysWalltime().WithSysNanotime().WithNanosleep(i.sleep).
		WithRandSource(rand.Reader)
}

// journalOf returns the spec's journal for "wasm" lines, or one that
// writes nothing.
func journalOf(spec transport.LaunchSpec) func(string) {
	if spec.Journal == nil {
		return func(string) {}
	}
	return func(line string) { spec.Journal("wasm", line) }
}

// mounts is an instance's file system: /plugin, and /bundle for run.js;
// and the cache file of the bytecode in /bundle, if it has some.
func (t *Transport) mounts(ctx context.Context, m *manifest.Manifest, g guest, mod *module, consented map[string]string, journal func(string)) (engine.FSConfig, string, error) {
	files, err := pluginFiles(m.Dir, t.o.FileLimit, t.o.FilesLimit, journal)
	if err != nil {
		return nil, "", err
	}
	fsc := engine.NewFSConfig().WithFSMount(files, PluginMount)
	if !g.bundle() {
		return fsc, "", nil
	}
	bundle, err := t.bundleFiles(ctx, m, g, mod)
	if err != nil {
		return nil, "", err
	}
	if err := heldToConsent(bundle, m, consented); err != nil {
		return nil, "", err
	}
	return fsc.WithFSMount(bundle, BundleMount), bytecodeFile(bundle), nil
}

// heldToConsent refuses a bundle whose bytes, as the engine read them,
// are not those the start's consent check hashed (consented, by path in
// the folder; nil when the start was not checked): a bundle swapped
// between the check and the read. An engine that cannot say what it read
// is refused as well.
func heldToConsent(bundle fs.FS, m *manifest.Manifest, consented map[string]string) error {
	rel := m.Run.BundlePath()
	want, ok := consented[rel]
	if !ok {
		return nil
	}
	sourced, ok := bundle.(interface{ SourceSHA256() string })
	if !ok || sourced.SourceSHA256() != want {
		return fmt.Errorf("%s changed between the start's check of what you consented to and its read: not run", rel)
	}
	return nil
}

// instantiate makes the instance's module on its goroutine. A module
// whose memory starts past the limit makes wazero panic on the nil the
// allocator returns: that is an error here.
func (i *instance) instantiate(cfg engine.ModuleConfig) (mod moduleInstance, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("its module needs more memory at start than its limit of %d MB", i.t.o.Memory>>20)
		}
	}()
	ctx := engine.WithMemoryAllocator(i.ctx, memoryAllocator{limit: i.t.o.Memory, refused: i.outOfMemory})
	m, err := i.mod.rt.r.InstantiateModule(ctx, i.mod.compiled, cfg)
	if err != nil {
		return nil, fmt.Errorf("its module does not start: %s", firstLine(err.Error()))
	}
	return m, nil
}

// sleep is the module's nanosleep: real time, cut short when the instance
// ends.
func (i *instance) sleep(ns int64) {
	t := time.NewTimer(time.Duration(ns))
	defer t.Stop()
	select {
	case <-t.C:
	case <-i.ctx.Done():
	}
}
