package jsrt

import (
	"bufio"
	"context"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/host/wasm/engine"
	"github.com/escouade-dev/escouade-plugin/manifest"
)

// The benchmarks compare the engine with node running the same bundle as a
// process over pipes, in the same run:
//
//	go test -run '^$' -bench . -benchtime 2000x ./jsrt
//	go test -run '^$' -bench LongBuiltin -benchtime 1x ./jsrt

// echoSrc answers each request with its params, as a plugin does.
const echoSrc = `
import { createInterface } from 'node:readline';
const rl = createInterface({ input: process.stdin });
rl.on('line', async (l) => { const m = JSON.parse(l); await null; process.stdout.write(JSON.stringify({jsonrpc:'2.0', id: m.id, result: m.params}) + '\n'); });
`

const echoLine = `{"jsonrpc":"2.0","id":1,"method":"hooks/message","params":{"text":"hello world","channel":"general","n":[1,2,3]}}`

// BenchmarkEchoTurn: one request line in, one answer line out.
func BenchmarkEchoTurn(b *testing.B) {
	for _, c := range []struct {
		name      string
		unguarded bool
	}{{"quickjs", false}, {"quickjs-unguarded", true}} {
		b.Run(c.name, func(b *testing.B) {
			in := start(b, echoSrc, instanceOptions{unguarded: c.unguarded})
			in.send(echoLine)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if out := in.send(echoLine); len(out) == 0 {
					b.Fatalf("no answer; stderr %s", in.stderr.String())
				}
			}
		})
	}
	b.Run("node", func(b *testing.B) {
		stdin, stdout := startNode(b, echoSrc)
		stdin.Write([]byte(echoLine + "\n"))
		stdout.ReadBytes('\n')
		b.ResetTimer()
		for range b.N {
			stdin.Write([]byte(echoLine + "\n"))
			if _, err := stdout.ReadBytes('\n'); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// startNode runs src with node as a process over pipes.
func startNode(b *testing.B, src string) (io.Writer, *bufio.Reader) {
	b.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		b.Skip("no node on this machine")
	}
	file := filepath.Join(b.TempDir(), "plugin.mjs")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(node, file)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { stdin.Close(); cmd.Wait() })
	return stdin, bufio.NewReader(stdout)
}

// BenchmarkWarmStart: from the compiled module to the answer to the first
// line (instantiate, _initialize, the bundle's top level, one request).
func BenchmarkWarmStart(b *testing.B) {
	b.Run("quickjs", func(b *testing.B) {
		sharedRuntime(b, true)
		b.ResetTimer()
		for range b.N {
			in := launch(b, echoSrc, instanceOptions{})
			in.stdin.WriteLine(echoLine)
			if out := in.runTurn(nil); len(out) == 0 {
				b.Fatal("no answer")
			}
			in.mod.Close(context.Background())
		}
	})
	b.Run("node", func(b *testing.B) {
		for range b.N {
			stdin, stdout := startNode(b, echoSrc)
			stdin.Write([]byte(echoLine + "\n"))
			if _, err := stdout.ReadBytes('\n'); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkFirstCompile: compiling the engine with no cache, and loading
// it from a warm compilation cache (what a host start does after install).
func BenchmarkFirstCompile(b *testing.B) {
	ctx := context.Background()
	compile := func(b *testing.B, cfg engine.RuntimeConfig) {
		rt := engine.NewRuntime(ctx, cfg)
		defer rt.Close(ctx)
		if _, err := rt.CompileModule(ctx, New().Module()); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("no cache", func(b *testing.B) {
		for range b.N {
			compile(b, engine.NewRuntimeConfig(true))
		}
	})
	b.Run("cached", func(b *testing.B) {
		cache, err := engine.NewCompilationCacheWithDir(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		cfg := engine.NewRuntimeConfig(true).WithCompilationCache(cache)
		compile(b, cfg)
		b.ResetTimer()
		for range b.N {
			compile(b, cfg)
		}
	})
}

// BenchmarkIdleInstance: the memory an instance holds once its bundle has
// started and waits: its linear memory, and the Go heap it adds.
func BenchmarkIdleInstance(b *testing.B) {
	sharedRuntime(b, true)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var linear uint32
	for range b.N {
		in := start(b, echoSrc, instanceOptions{})
		linear = in.mod.Memory().Size()
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(linear), "linear-bytes/instance")
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(b.N), "go-heap-bytes/instance")
}

// BenchmarkJSWork: a turn of plain JS work (objects, JSON, a regexp), to
// show what WithCloseOnContextDone costs the interpreter.
func BenchmarkJSWork(b *testing.B) {
	const src = listenSrc + `
process.stdin.removeAllListeners('data');
process.stdin.on('data', () => {
  const o = [];
  for (let i = 0; i < 2e4; i++) o.push({ a: i, b: 'x' + i });
  const s = JSON.stringify(o);
  process.stdout.write(String(JSON.parse(s).length + s.replace(/x/g, 'yy').length) + '\n');
});`
	for _, c := range []struct {
		name      string
		unguarded bool
	}{{"quickjs", false}, {"quickjs-unguarded", true}} {
		b.Run(c.name, func(b *testing.B) {
			in := launch(b, src, instanceOptions{unguarded: c.unguarded})
			in.setBudget(60000)
			in.runTurn(nil)
			b.ResetTimer()
			for range b.N {
				if out := in.send("{}"); len(out) == 0 {
					b.Fatalf("no answer; stderr %s", in.stderr.String())
				}
			}
		})
	}
	b.Run("node", func(b *testing.B) {
		stdin, stdout := startNode(b, src)
		b.ResetTimer()
		for range b.N {
			stdin.Write([]byte("{}\n"))
			if _, err := stdout.ReadBytes('\n'); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkLongBuiltin: built-ins that never call QuickJS's interrupt
// handler, at sizes the 64 MB limit allows, on a runtime without
// WithCloseOnContextDone: nothing stops them before they return (and
// Array.prototype.includes.call({length: 2 ** 53}, 1) would not return).
func BenchmarkLongBuiltin(b *testing.B) {
	for name, src := range map[string]string{
		"bigint-toString": `(3n ** 600000n).toString()`,
		"bigint-parse":    `BigInt('9'.repeat(300000))`,
		"normalize":       `('a'.repeat(1 << 22) + 'b').normalize('NFD')`,
		"typedarray-sort": `const a = new Float64Array(4e6); for (let i = 0; i < a.length; i++) a[i] = Math.sin(i); a.sort()`,
	} {
		b.Run(name, func(b *testing.B) {
			for range b.N {
				in := launch(b, src, instanceOptions{unguarded: true})
				in.setBudget(120000)
				in.runTurn(nil)
				if in.ended != nil {
					b.Fatalf("%v: %s", in.ended, in.stderr.String())
				}
				in.mod.Close(context.Background())
			}
		})
	}
}

// BenchmarkHelloStart: hello-js from its manifest to the answer to
// initialize, from its source (Bundle: esbuild's check, then QuickJS
// parses runtime.js and the bundle), from its source unchecked, and from
// the host's cache (CachedBundle
// with its bytecode there), one after the other in each round so that both
// see the same load:
//
//	go test -run '^$' -bench HelloStart -benchtime 40x ./jsrt
func BenchmarkHelloStart(b *testing.B) {
	r := sharedRuntime(b, true)
	m, err := manifest.Load("../examples/hello-js", manifest.LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	if _, err := New().CachedBundle(m, dir, compileOn(r)); err != nil {
		b.Fatal(err)
	}
	const initLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"escouade":{"version":"2.2.0"},"plugin":{"id":"dev.escouade.hello-js","version":"1.0.0"},"lang":"fr","capabilities":{"batch":true,"secrets":true,"settings":true,"log":true,"attach":true}}}`
	plugin := os.DirFS(m.Dir)
	start := func(bundle func() (fs.FS, error)) time.Duration {
		t0 := time.Now()
		files, err := bundle()
		if err != nil {
			b.Fatal(err)
		}
		in := launchFiles(b, files, instanceOptions{plugin: plugin})
		in.stdin.WriteLine(initLine)
		if out := in.runTurn(nil); !strings.Contains(out, `"id":1`) {
			b.Fatalf("no answer: %q %s", out, in.stderr.String())
		}
		took := time.Since(t0)
		in.mod.Close(context.Background())
		return took
	}
	src, err := os.ReadFile(filepath.Join(m.Dir, m.Run.JS))
	if err != nil {
		b.Fatal(err)
	}
	var source, parsed, cached time.Duration
	for range b.N {
		source += start(func() (fs.FS, error) { return New().Bundle(m) })
		parsed += start(func() (fs.FS, error) { return BundleFS(src, m.Run.JS), nil })
		cached += start(func() (fs.FS, error) { return New().CachedBundle(m, dir, compileOn(r)) })
	}
	b.ReportMetric(float64(source.Microseconds())/float64(b.N)/1000, "source-ms/start")
	// unchecked: the source without Check, what the engine's parse costs
	b.ReportMetric(float64(parsed.Microseconds())/float64(b.N)/1000, "unchecked-ms/start")
	b.ReportMetric(float64(cached.Microseconds())/float64(b.N)/1000, "bytecode-ms/start")
}
