package wasm

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
)

// fills is a reactor whose _initialize is n memory.fill of 4096 bytes of
// 1s, one after the other: a module within every bound of the pre-pass
// that the compiler spends seconds and hundreds of MB on (each fill is
// loops of its own, and the register allocator's work grows faster than
// their number).
func fills(n int) []byte {
	fill := []byte{opI32Const, 0, opI32Const, 1, opI32Const, 0x80, 0x20, 0xfc, 11, 0} // memory.fill(0, 1, 4096)
	var body []byte
	for range n {
		body = append(body, fill...)
	}
	return encode(nil, []wasmFunc{{export: "_initialize", body: body}, {export: "escouade-turn"}}, 1)
}

// compileFails precompiles module and returns the compile's bound error.
func compileFails(t *testing.T, o Options, module []byte) *compileBoundError {
	t.Helper()
	tr := newTransport(t, o)
	err := tr.Precompile(context.Background(), pluginDir(t, module, nil), nil)
	var bound *compileBoundError
	if !errors.As(err, &bound) {
		t.Fatalf("Precompile returned %v, want the compile ended at a bound", err)
	}
	return bound
}

// A compile past its time is ended by the deadline, with the sentence
// naming the bound.
func TestCompilePastItsTime(t *testing.T) {
	bound := compileFails(t, Options{CacheDir: t.TempDir(), CompileTime: 200_000_000}, fills(2000))
	if bound.bound != boundTime {
		t.Errorf("the compile ended at bound %d, want the time (%d)", bound.bound, boundTime)
	}
	want := "compiling plugin.wasm took more than 200 ms (the bound on a module's compile)"
	if bound.Error() != want {
		t.Errorf("error %q, want %q", bound.Error(), want)
	}
}

// A compile past its memory is ended by the child's memory bound, not its
// time; the same bound lets a small module compile.
func TestCompilePastItsMemory(t *testing.T) {
	if !memoryBounded {
		t.Skip("the compile's memory is a hard bound on Linux only")
	}
	// The child is this binary: what it maps before it compiles is about
	// what this process maps now (more under the race detector).
	limit := mappedData(t) + 160<<20
	o := Options{CacheDir: t.TempDir(), CompileMemory: limit}
	if err := newTransport(t, o).compileInChild(context.Background(), source{name: ModuleFile, bytes: fills(10)}); err != nil {
		t.Fatalf("a small module under %d MiB: %v", limit>>20, err)
	}
	bound := compileFails(t, o, fills(2000))
	if bound.bound != boundMemory {
		t.Errorf("the compile ended at bound %d, want the memory (%d): %v", bound.bound, boundMemory, bound)
	}
	if !strings.Contains(bound.Error(), "compiling plugin.wasm took more than") || !strings.Contains(bound.Error(), "MiB of memory (the bound on a module's compile") {
		t.Errorf("error %q does not name the memory bound", bound.Error())
	}
}

// mappedData is the data this process has mapped (VmData), in bytes.
func mappedData(t *testing.T) uint64 {
	t.Helper()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmData:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmData in /proc/self/status")
	return 0
}

// A plugin's module is compiled by the child into the cache, where the
// transport's own compile reads it; a module the compiler refuses says
// why, as in process.
func TestCompileInChildFillsTheCache(t *testing.T) {
	cache := t.TempDir()
	tr := newTransport(t, Options{CacheDir: cache})
	module := fills(10)
	compiled, err := tr.rewritten(source{name: ModuleFile, bytes: module, rt: tr.rt}, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.compileInChild(context.Background(), source{name: ModuleFile, bytes: compiled}); err != nil {
		t.Fatal(err)
	}
	if n := CachedModules(cache, ""); n != 1 {
		t.Fatalf("%d modules in the cache after the child's compile, want 1", n)
	}
	if err := tr.Precompile(context.Background(), pluginDir(t, module, nil), nil); err != nil {
		t.Fatal(err)
	}
	if n := CachedModules(cache, ""); n != 1 {
		t.Errorf("%d modules in the cache after the transport's compile, want the child's 1", n)
	}

	invalid := encode(nil, []wasmFunc{{export: "_initialize", body: []byte{opI32Const, 0}}}, 1) // leaves a value
	err = tr.Precompile(context.Background(), pluginDir(t, invalid, nil), nil)
	if err == nil || !strings.HasPrefix(err.Error(), "its module does not compile: ") {
		t.Errorf("Precompile of an invalid module returned %v, want the compiler's refusal", err)
	}
}

// A plugin's module compiled without the child leaves no mark, so that a
// host with the child still bounds its compile; one compiled through the
// child does, and the next compile skips the child.
func TestMarkOnlyWhenCompiledWithinTheBounds(t *testing.T) {
	module := fills(10)
	for _, inProcess := range []bool{true, false} {
		tr := newTransport(t, Options{CacheDir: t.TempDir(), CompileInProcess: inProcess})
		if err := tr.Precompile(context.Background(), pluginDir(t, module, nil), nil); err != nil {
			t.Fatal(err)
		}
		if got := tr.bodiesChecked(digest(module)); got == inProcess {
			t.Errorf("compiled with CompileInProcess %v: marked %v, want %v", inProcess, got, !inProcess)
		}
	}
}

// BenchmarkColdCompile compares a cold compile of a Go module (the kit's
// shape) in this process with one in a compile child followed by the read
// of its code from the cache, which is what a plugin's module costs now:
//
//	go test -run '^$' -bench ColdCompile -benchtime 3x ./host/wasm/
func BenchmarkColdCompile(b *testing.B) {
	module := fixture(b, "reactor")
	b.Run("in-process", func(b *testing.B) {
		for range b.N {
			tr := newTransport(b, Options{CacheDir: b.TempDir(), CompileInProcess: true})
			cm, err := tr.rt.r.CompileModule(context.Background(), module)
			if err != nil {
				b.Fatal(err)
			}
			_ = cm.Close(context.Background())
		}
	})
	b.Run("child", func(b *testing.B) {
		for range b.N {
			tr := newTransport(b, Options{CacheDir: b.TempDir()})
			cm, err := tr.compileBounded(context.Background(), source{name: ModuleFile, bytes: module, rt: tr.rt}, false)
			if err != nil {
				b.Fatal(err)
			}
			_ = cm.Close(context.Background())
		}
	})
}
