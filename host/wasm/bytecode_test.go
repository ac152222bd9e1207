package wasm

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/jsrt"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// countingEngine is package jsrt's engine, counting the compiles the
// transport runs for it.
type countingEngine struct {
	*jsrt.Engine
	compiles atomic.Int32
}

func (e *countingEngine) CachedBundle(m *manifest.Manifest, dir string, compile func(fs.FS) ([]byte, error)) (fs.FS, error) {
	return e.Engine.CachedBundle(m, dir, func(bundle fs.FS) ([]byte, error) {
		e.compiles.Add(1)
		return compile(bundle)
	})
}

const helloInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"escouade":{"version":"2.2.0"},"plugin":{"id":"dev.escouade.hello-js","version":"1.0.0"},"lang":"fr","capabilities":{"batch":true,"secrets":true,"settings":true,"log":true,"attach":true}}}` + "\n"

// A run.js plugin's first start compiles its bytecode into the cache
// folder, in an instance of the engine of its own; the next start, of a
// new transport on the same folder, reads it back and compiles nothing.
func TestBundleBytecodeCached(t *testing.T) {
	m, err := manifest.Load("../../examples/hello-js", manifest.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	e := &countingEngine{Engine: jsrt.New()}
	for start := 1; start <= 2; start++ {
		tr := newTransport(t, Options{JS: e, CacheDir: cache})
		prog := launch(t, tr, specOf(m))
		if _, err := prog.Stdin().Write([]byte(helloInitialize)); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(prog.Stdout()).ReadString('\n')
		if err != nil || !strings.Contains(line, `"id":1`) || !strings.Contains(line, `"result"`) {
			t.Fatalf("start %d: %q, %v; stderr %q", start, line, err, prog.LastStderr())
		}
		if got := e.compiles.Load(); got != 1 {
			t.Fatalf("after start %d: %d compiles, want 1", start, got)
		}
	}
	names, _ := filepath.Glob(filepath.Join(BytecodeFolder(cache, ""), "*.qbc"))
	if len(names) != 1 {
		t.Fatalf("cache files %v, want one", names)
	}
	if n := CachedModules(cache, ""); n != 1 {
		t.Errorf("the compile cache counts %d modules, want the engine alone", n)
	}
	if info, err := os.Stat(names[0]); err != nil || info.Mode().Perm()&0o077 != 0 {
		t.Errorf("cache file %v, %v: want it private", info.Mode(), err)
	}
}

// sourceOnly is package jsrt's engine without its bytecode: every start
// checks and parses the bundle, as before the cache.
type sourceOnly struct{ e *jsrt.Engine }

func (s sourceOnly) Module() []byte { return s.e.Module() }

func (s sourceOnly) Bundle(m *manifest.Manifest) (fs.FS, error) { return s.e.Bundle(m) }

func (s sourceOnly) ExitOf(code uint32, lastStderr []string, limit time.Duration) transport.Exit {
	return s.e.ExitOf(code, lastStderr, limit)
}

// BenchmarkHelloStartBytecode: hello-js through the transport, from its
// launch to initialize answered, with a warm compile cache: from the
// source and from the bytecode cache, one after the other in each round so
// that both see the same load.
//
//	go test -run '^$' -bench HelloStartBytecode -benchtime 40x ./host/wasm
func BenchmarkHelloStartBytecode(b *testing.B) {
	m, err := manifest.Load("../../examples/hello-js", manifest.LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	cache := b.TempDir()
	transports := map[string]*Transport{
		"source":   newTransport(b, Options{JS: sourceOnly{jsrt.New()}, CacheDir: cache}),
		"bytecode": newTransport(b, Options{JS: jsrt.New(), CacheDir: cache}),
	}
	for _, tr := range transports {
		initAnswer(b, tr, m) // compiles the engine, and the bytecode
	}
	spent := map[string]time.Duration{}
	b.ResetTimer()
	for range b.N {
		for _, name := range []string{"source", "bytecode"} {
			t0 := time.Now()
			initAnswer(b, transports[name], m)
			spent[name] += time.Since(t0)
		}
	}
	for name, d := range spent {
		b.ReportMetric(float64(d.Microseconds())/float64(b.N)/1000, name+"-ms/start")
	}
}

// Precompile (install, build) keeps a run.js plugin's bytecode, so that
// even its first start reads it.
func TestPrecompileKeepsBundleBytecode(t *testing.T) {
	m, err := manifest.Load("../../examples/hello-js", manifest.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	e := &countingEngine{Engine: jsrt.New()}
	if err := newTransport(t, Options{JS: e, CacheDir: cache}).Precompile(t.Context(), m, nil); err != nil {
		t.Fatal(err)
	}
	prog := launch(t, newTransport(t, Options{JS: e, CacheDir: cache}), specOf(m))
	if _, err := prog.Stdin().Write([]byte(helloInitialize)); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(prog.Stdout()).ReadString('\n'); err != nil || !strings.Contains(line, `"result"`) {
		t.Fatalf("%q, %v", line, err)
	}
	if n := e.compiles.Load(); n != 1 {
		t.Fatalf("%d compiles, want 1, by Precompile", n)
	}
}

// forgeUnloadable rewrites the cache file at file with its own key and a
// digest that matches, around a bundle frame QuickJS does not read back
// (a bytecode version it does not know): what a round-trip bug leaves.
func forgeUnloadable(t *testing.T, file string) {
	t.Helper()
	good, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	const magicAndKey, header = 16 + sha256.Size, 16 + 2*sha256.Size
	payload := good[header:]
	runtimeFrame := payload[:4+binary.LittleEndian.Uint32(payload)]
	bad := binary.LittleEndian.AppendUint32(bytes.Clone(runtimeFrame), 4)
	bad = append(bad, 0xfe, 0xfe, 0xfe, 0xfe)
	digest := sha256.Sum256(bad)
	forged := append(append(bytes.Clone(good[:magicAndKey]), digest[:]...), bad...)
	if err := os.WriteFile(file, forged, 0o600); err != nil {
		t.Fatal(err)
	}
}

// A cache file whose key and digest hold but whose bytecode does not load
// ends the start that read it; the host then drops it, says so once in
// the journal, and the next start compiles from the source, answers, and
// keeps a fresh file.
func TestUnloadableBytecodeDropped(t *testing.T) {
	m, err := manifest.Load("../../examples/hello-js", manifest.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	e := &countingEngine{Engine: jsrt.New()}
	tr := newTransport(t, Options{JS: e, CacheDir: cache})
	if err := tr.Precompile(t.Context(), m, nil); err != nil {
		t.Fatal(err)
	}
	names, _ := filepath.Glob(filepath.Join(BytecodeFolder(cache, ""), "*.qbc"))
	if len(names) != 1 {
		t.Fatalf("cache files %v, want one", names)
	}
	forgeUnloadable(t, names[0])

	journal := &journal{}
	prog := launch(t, tr, specOf(m, transport.LaunchSpec{Journal: journal.add}))
	<-prog.Done()
	if exit := prog.Exit(); exit.Kind != transport.Trapped {
		t.Fatalf("the start from unloadable bytecode ended %v, want a crash", exit)
	}
	var got []string
	for _, l := range journal.all() {
		if strings.Contains(l, filepath.Base(names[0])) {
			got = append(got, l)
		}
	}
	if len(got) != 1 || !strings.HasPrefix(got[0], "wasm ") || !strings.Contains(got[0], "dropped") {
		t.Fatalf("journal %q, want one wasm line dropping the file", journal.all())
	}
	if _, err := os.Stat(names[0]); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the unloadable file is still there: %v", err)
	}

	prog = launch(t, tr, specOf(m))
	if _, err := prog.Stdin().Write([]byte(helloInitialize)); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(prog.Stdout()).ReadString('\n'); err != nil || !strings.Contains(line, `"result"`) {
		t.Fatalf("the start after the drop: %q, %v; stderr %q", line, err, prog.LastStderr())
	}
	if n := e.compiles.Load(); n != 2 {
		t.Fatalf("%d compiles, want 2: the start after the drop compiles again", n)
	}
	if data, err := os.ReadFile(names[0]); err != nil || len(data) < 1000 {
		t.Fatalf("no fresh cache file after the drop: %d bytes, %v", len(data), err)
	}
}

// A plugin the host ends during its start keeps its bytecode: only a
// start that failed by itself drops it.
func TestBytecodeKeptWhenTheHostEndsTheStart(t *testing.T) {
	inst := &instance{bytecode: filepath.Join(t.TempDir(), "x.qbc")}
	if err := os.WriteFile(inst.bytecode, []byte("kept"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, exit := range []transport.Exit{killed, {Kind: transport.Exited, Code: 3}} {
		inst.dropBytecode(exit)
		if _, err := os.Stat(inst.bytecode); err != nil {
			t.Fatalf("after %v the file is gone: %v", exit, err)
		}
	}
	inst.dropBytecode(transport.Exit{Kind: transport.Trapped, Detail: "x"})
	if _, err := os.Stat(inst.bytecode); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a crashed start kept the file: %v", err)
	}
}
