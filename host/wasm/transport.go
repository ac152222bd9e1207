package wasm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/escouade-dev/escouade-plugin/host/wasm/engine"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// Transport runs modules; it implements transport.Transport. It owns one
// engine.Runtime (two when Options.JSWithoutCloseOnContextDone) and the
// compile cache; Close releases them. Its methods are safe for concurrent
// use.
type Transport struct {
	o     Options
	cache engine.CompilationCache
	rt    *engineRuntime // every module
	js    *engineRuntime // the JS engine's: rt unless it runs without checks

	mu      sync.Mutex
	modules map[moduleKey]*module
	current map[string]moduleKey // plugin folder → its module now
	live    map[*instance]struct{}
	closed  bool

	// jsDigest is the SHA-256 of the JS engine's module, the host's own
	// bytes, hashed once rather than at every start of a bundle.
	jsDigest func() string

	instances atomic.Int64 // numbers the instances: "instance N"
	compiles  atomic.Int64 // modules compiled (a cache hit on disk counts too)
	read      atomic.Int64 // plugin modules read whole (held reads none)
}

// engineRuntime is a engine.Runtime with the host modules instantiated in it.
type engineRuntime struct {
	r      engine.Runtime
	have   provided
	checks bool // compiled with termination checks: a close stops a running call
	// tablesLimited says the runtime bounds each table to maxTableEntries,
	// the pre-pass's bound of all tables together: a module of one table
	// then needs no maximum written into its bytes (bounds.go).
	tablesLimited bool
}

var _ transport.Transport = (*Transport)(nil)

// ErrClosed is returned by a Transport used after Close.
var ErrClosed = errors.New("the WASM transport is closed")

// New makes a Transport. Compiled code is kept under
// o.CacheDir/<host version>/.
func New(ctx context.Context, o Options) (*Transport, error) {
	o = o.withDefaults()
	t := &Transport{o: o, modules: map[moduleKey]*module{}, current: map[string]moduleKey{}, live: map[*instance]struct{}{}}
	if o.JS != nil {
		t.jsDigest = sync.OnceValue(func() string { return digest(o.JS.Module()) })
	}
	var err error
	t.o, t.cache = cacheOnDiskOrNot(o)
	o = t.o
	if t.rt, err = newRuntime(ctx, t.cache, true); err != nil {
		_ = t.cache.Close(ctx)
		return nil, err
	}
	t.js = t.rt
	if o.JSWithoutCloseOnContextDone {
		if t.js, err = newRuntime(ctx, t.cache, false); err != nil {
			_ = t.rt.r.Close(ctx)
			_ = t.cache.Close(ctx)
			return nil, err
		}
	}
	return t, nil
}

// CacheFolder is where compiled code is kept for a host version and the
// runtime that compiled it: a new version of either starts an empty
// folder, so an update of the host or a change of runtime recompiles
// rather than read code another build wrote.
func CacheFolder(cacheDir, hostVersion string) string {
	v := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' {
			return '_'
		}
		return r
	}, orDefault(hostVersion, defaultHostVersion))
	return filepath.Join(cacheDir, "host-"+v+"-"+engine.Name+"-"+engine.Version)
}

func newCache(o Options) (engine.CompilationCache, error) {
	if o.CacheDir == "" {
		return engine.NewCompilationCache(), nil
	}
	sweepCacheTemps(o.CacheDir, time.Now())
	return engine.NewCompilationCacheWithDir(CacheFolder(o.CacheDir, o.HostVersion))
}

// cacheOnDiskOrNot is o with its cache on disk when the folder can be
// made, and without (modules compiled at each start, said once on the
// host's stderr) when it cannot: a read-only or full home must not stop
// plugins from running.
func cacheOnDiskOrNot(o Options) (Options, engine.CompilationCache) {
	c, err := newCache(o)
	if err == nil {
		return o, c
	}
	fmt.Fprintf(os.Stderr, "escouade: the compile cache cannot be written in %s (%s): modules and bundles are compiled at each start; make that folder writable, or give a writable home (--home, ESCOUADE_HOME)\n", o.CacheDir, reasonOf(err))
	o.CacheDir = ""
	return o, engine.NewCompilationCache()
}

// reasonOf is the system's reason of err, without the paths its
// wrappers name: the last of its parts.
func reasonOf(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	msg := err.Error()
	return msg[strings.LastIndex(msg, ": ")+len(": "):]
}

// newRuntime makes a runtime. checks compiles modules with wazero's
// termination checks, which let the host stop a runaway turn.
func newRuntime(ctx context.Context, cache engine.CompilationCache, checks bool) (*engineRuntime, error) {
	r := engine.NewRuntime(ctx, runtimeConfig(cache, checks))
	_, tablesLimited := engine.WithTableLimit(engine.NewRuntimeConfig(checks), maxTableEntries)
	have, err := instantiateHostModules(ctx, r)
	if err != nil {
		_ = r.Close(ctx)
		return nil, err
	}
	return &engineRuntime{r: r, have: have, checks: checks || engine.AlwaysChecks, tablesLimited: tablesLimited}, nil
}

// runtimeConfig is the compiler's configuration, the same in a compile
// child (compilebound.go): the cache's entries are keyed by the module's
// bytes, not by it.
func runtimeConfig(cache engine.CompilationCache, checks bool) engine.RuntimeConfig {
	cfg, _ := engine.WithTableLimit(engine.NewRuntimeConfig(checks).WithCompilationCache(cache), maxTableEntries)
	return cfg
}

// Close ends every instance still running (the host stops them first; this
// is for those it could not), then closes the compiled modules and the
// runtimes. The cache on disk stays.
func (t *Transport) Close(ctx context.Context) error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	live := make([]*instance, 0, len(t.live))
	for i := range t.live {
		live = append(live, i)
	}
	t.mu.Unlock()
	for _, i := range live {
		i.kill()
	}
	for _, i := range live {
		select {
		case <-i.done:
		case <-ctx.Done():
		}
	}
	err := t.rt.r.Close(ctx)
	if t.js != t.rt {
		err = errors.Join(err, t.js.r.Close(ctx))
	}
	return errors.Join(err, t.cache.Close(ctx))
}

// Precompile compiles the plugin's module into the cache (install, build,
// a first start), checking version.json and the module's imports and
// shape first, and for a run.js plugin its bundle's bytecode
// (bytecode.go). A compile that lasts shows progress: a line saying what
// is compiled, then one with its time. progress may be nil.
func (t *Transport) Precompile(ctx context.Context, m *manifest.Manifest, progress func(string)) error {
	mod, err := t.module(ctx, m, "", progress)
	if err != nil {
		return err
	}
	return t.precompileBundle(ctx, m, mod)
}

// nextID numbers an instance.
func (t *Transport) nextID() int64 { return t.instances.Add(1) }

// track keeps i among the live instances until it ends; false once the
// transport is closed.
func (t *Transport) track(i *instance) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return false
	}
	t.live[i] = struct{}{}
	return true
}

func (t *Transport) untrack(i *instance) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.live, i)
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Decisions tells the transport how to know whether prog, one of its
// instances, holds a decision an agent waits for (a permissions/… call):
// its turns then have DecisionTurnLimit instead of TurnLimit
// (docs/protocol.md#limits). The host knows what it waits for; it hands
// this over for each program it launched (host.Options.Decisions, which
// package modules sets to this). A program of another transport is
// ignored.
func (t *Transport) Decisions(prog transport.Program, holds func() bool) {
	if i, ok := prog.(*instance); ok && i.t == t {
		i.holds.Store(&holds)
	}
}
