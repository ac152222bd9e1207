package wasm

// Benchmarks of the transport. Reproduce with
//
//	go test -run '^$' -bench 'Turn' -benchtime 2000x ./host/wasm/
//	go test -run '^$' -bench 'Start|Idle|Runaway|LoopChecks|New' -benchtime 5x ./host/wasm/
//
// Turn compares one line through a minimal reactor (the C fixture that
// copies stdin to stdout) by the transport, by a direct wazero call of the
// same export (with and without the termination checks the limits need),
// by a command module's blocking read, and by an OS process (cat) over
// pipes; go/direct/stack is go/direct/checks with the module rewritten to
// bound its native stack (stack.go), what every plugin's module now is. Start times Launch to the first answer with a warm cache (in
// memory, on disk) and a cold one; Idle is the memory of an idle instance;
// RunawayStop how far past its limit an endless loop runs; LoopChecks what
// the termination checks cost a guest's loop; New what a host pays once.

import (
	"bufio"
	"context"
	"io"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/host/wasm/engine"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/transport"
)

var benchLine = []byte(`{"jsonrpc":"2.0","id":1,"method":"echo","params":{"text":"hello"}}` + "\n")

// roundTrips writes benchLine b.N times and reads each copy back.
func roundTrips(b *testing.B, in io.Writer, out io.Reader) {
	r := bufio.NewReader(out)
	b.SetBytes(int64(len(benchLine)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := in.Write(benchLine); err != nil {
			b.Fatal(err)
		}
		if _, err := r.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTurn(b *testing.B) {
	b.Run("transport/reactor", func(b *testing.B) {
		tr := newTransport(b, Options{})
		prog := launch(b, tr, specOf(pluginDir(b, fixture(b, "c-reactor"), nil)))
		roundTrips(b, prog.Stdin(), prog.Stdout())
	})
	b.Run("transport/command", func(b *testing.B) {
		tr := newTransport(b, Options{})
		prog := launch(b, tr, specOf(pluginDir(b, fixture(b, "c-command"), nil)))
		roundTrips(b, prog.Stdin(), prog.Stdout())
	})
	b.Run("direct/checks", func(b *testing.B) { directTurns(b, "c-reactor", true) })
	b.Run("direct/nochecks", func(b *testing.B) { directTurns(b, "c-reactor", false) })
	b.Run("go/transport", func(b *testing.B) {
		tr := newTransport(b, Options{})
		prog := launch(b, tr, specOf(pluginDir(b, fixture(b, "reactor"), nil)))
		roundTrips(b, prog.Stdin(), prog.Stdout())
	})
	b.Run("go/direct/checks", func(b *testing.B) { directTurns(b, "reactor", true) })
	b.Run("go/direct/nochecks", func(b *testing.B) { directTurns(b, "reactor", false) })
	b.Run("go/direct/stack", func(b *testing.B) {
		module, err := instrumentStack(fixture(b, "reactor"))
		if err != nil {
			b.Fatal(err)
		}
		directTurnsOf(b, module, true)
	})
	b.Run("process/cat", func(b *testing.B) {
		cat, err := exec.LookPath("cat")
		if err != nil {
			b.Skip("no cat")
		}
		cmd := exec.Command(cat)
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		defer func() { _ = in.Close(); _ = cmd.Wait() }()
		roundTrips(b, in, out)
	})
}

// directTurns calls a reactor's escouade-turn with wazero alone: the line
// in a reader, the answer in a buffer, no goroutine between.
func directTurns(b *testing.B, fixtureName string, checks bool) {
	directTurnsOf(b, fixture(b, fixtureName), checks)
}

// directTurnsOf is directTurns of a module's bytes.
func directTurnsOf(b *testing.B, module []byte, checks bool) {
	ctx := context.Background()
	r := engine.NewRuntime(ctx, engine.NewRuntimeConfig(checks))
	defer r.Close(ctx)
	engine.MustInstantiateWASI(ctx, r)
	in := newStdin(true, 1<<20, &countingClock{})
	var out lineSink
	mod, err := r.InstantiateModule(ctx, mustCompile(b, r, module),
		engine.NewModuleConfig().WithStdin(in).WithStdout(&out).WithStartFunctions("_initialize"))
	if err != nil {
		b.Fatal(err)
	}
	turn := mod.ExportedFunction(turnExport)
	stack := make([]uint64, 1)
	b.SetBytes(int64(len(benchLine)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		_, _ = in.Write(benchLine)
		if err := turn.CallWithStack(ctx, stack); err != nil {
			b.Fatal(err)
		}
		if out.n == 0 {
			b.Fatal("the turn wrote nothing")
		}
		out.n = 0
	}
}

type lineSink struct{ n int }

func (s *lineSink) Write(p []byte) (int, error) { s.n += len(p); return len(p), nil }

func mustCompile(b *testing.B, r engine.Runtime, bin []byte) engine.CompiledModule {
	cm, err := r.CompileModule(context.Background(), bin)
	if err != nil {
		b.Fatal(err)
	}
	return cm
}

// BenchmarkStart times Launch to the first answer of the Go reactor
// fixture (a module the size of a kit plugin).
func BenchmarkStart(b *testing.B) {
	module := fixture(b, "reactor")
	b.Run("warm/memory", func(b *testing.B) {
		tr := newTransport(b, Options{CacheDir: b.TempDir()})
		m := pluginDir(b, module, nil)
		if err := tr.Precompile(context.Background(), m, nil); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for range b.N {
			firstAnswer(b, tr, m)
		}
	})
	b.Run("warm/disk", func(b *testing.B) {
		cache := b.TempDir()
		m := pluginDir(b, module, nil)
		if err := newTransport(b, Options{CacheDir: cache}).Precompile(context.Background(), m, nil); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for range b.N {
			tr, err := New(context.Background(), Options{CacheDir: cache})
			if err != nil {
				b.Fatal(err)
			}
			firstAnswer(b, tr, m)
			_ = tr.Close(context.Background())
		}
	})
	b.Run("cold", func(b *testing.B) {
		m := pluginDir(b, module, nil)
		for range b.N {
			tr, err := New(context.Background(), Options{CacheDir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			firstAnswer(b, tr, m)
			_ = tr.Close(context.Background())
		}
	})
}

func firstAnswer(b *testing.B, tr *Transport, m *manifest.Manifest) {
	prog, err := tr.Launch(context.Background(), specOf(m))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := prog.Stdin().Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"echo"}` + "\n")); err != nil {
		b.Fatal(err)
	}
	if _, err := bufio.NewReader(prog.Stdout()).ReadSlice('\n'); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	_ = prog.Stop(context.Background(), transport.StopOptions{})
	b.StartTimer()
}

// BenchmarkIdle reports the Go heap an idle instance of the Go reactor
// holds, its linear memory included, once it has answered a call.
func BenchmarkIdle(b *testing.B) {
	tr := newTransport(b, Options{})
	m := pluginDir(b, fixture(b, "reactor"), nil)
	if err := tr.Precompile(context.Background(), m, nil); err != nil {
		b.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	progs := make([]transport.Program, b.N)
	for i := range progs {
		prog, err := tr.Launch(context.Background(), specOf(m))
		if err != nil {
			b.Fatal(err)
		}
		_, _ = prog.Stdin().Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"echo"}` + "\n"))
		if _, err := bufio.NewReader(prog.Stdout()).ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
		progs[i] = prog
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapInuse-before.HeapInuse)/float64(b.N)/(1<<20), "MB/instance")
	for _, p := range progs {
		_ = p.Stop(context.Background(), transport.StopOptions{})
	}
}

// BenchmarkRunawayStop times how far past its limit a runaway loop runs
// before its instance has ended: the limit is 100 ms, the metric the
// overshoot.
func BenchmarkRunawayStop(b *testing.B) {
	const limit = 100 * time.Millisecond
	tr := newTransport(b, Options{TurnLimit: limit})
	m := pluginDir(b, loopsInStart, nil)
	if err := tr.Precompile(context.Background(), m, nil); err != nil {
		b.Fatal(err)
	}
	var over time.Duration
	for range b.N {
		began := time.Now()
		prog, err := tr.Launch(context.Background(), specOf(m))
		if err != nil {
			b.Fatal(err)
		}
		<-prog.Done()
		over += time.Since(began) - limit
	}
	b.ReportMetric(float64(over.Microseconds())/float64(b.N)/1000, "ms-over-limit")
}

// countDown is a module exporting count(n): a loop of n turns, the
// guest's work in its simplest form.
var countDown = encode(nil, []wasmFunc{{export: "count", params: []byte{i32}, body: []byte{
	opLoop, blockEmpty,
	0x20, 0, // local.get 0
	opI32Const, 1,
	0x6b,    // i32.sub
	0x22, 0, // local.tee 0
	0x0d, 0, // br_if 0
	opEnd,
}}}, 1)

// BenchmarkLoopChecks is the cost of the termination checks the turn
// limit needs on a guest's own work: a million loop turns, with and
// without them.
func BenchmarkLoopChecks(b *testing.B) {
	for _, checks := range []bool{true, false} {
		b.Run(map[bool]string{true: "checks", false: "nochecks"}[checks], func(b *testing.B) {
			ctx := context.Background()
			r := engine.NewRuntime(ctx, engine.NewRuntimeConfig(checks))
			defer r.Close(ctx)
			mod, err := r.InstantiateModule(ctx, mustCompile(b, r, countDown), engine.NewModuleConfig())
			if err != nil {
				b.Fatal(err)
			}
			count := mod.ExportedFunction("count")
			stack := []uint64{1_000_000}
			b.ResetTimer()
			for range b.N {
				stack[0] = 1_000_000
				if err := count.CallWithStack(ctx, stack); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNew is what a host pays once for the transport: a runtime and
// its host modules.
func BenchmarkNew(b *testing.B) {
	for range b.N {
		tr, err := New(context.Background(), Options{})
		if err != nil {
			b.Fatal(err)
		}
		_ = tr.Close(context.Background())
	}
}

// BenchmarkStackBudget is what the stack's budget costs a call at worst,
// in functions that do nothing else: a tree of 131,070 calls (callTree)
// run by its _start, as compiled and as rewritten (stack.go). Run the two
// in turn, one process each:
//
//	go test -c -o wasm.test ./host/wasm/ && cd host/wasm && for i in 1 2 3 4 5 6; do ../../wasm.test -test.run '^$' -test.bench StackBudget -test.benchtime 300x; done
func BenchmarkStackBudget(b *testing.B) {
	rewritten, err := instrumentStack(callTree(16))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		module []byte
	}{{"plain", callTree(16)}, {"budget", rewritten}} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			r := engine.NewRuntime(ctx, engine.NewRuntimeConfig(true))
			defer r.Close(ctx)
			mod, err := r.InstantiateModule(ctx, mustCompile(b, r, c.module), engine.NewModuleConfig().WithStartFunctions())
			if err != nil {
				b.Fatal(err)
			}
			start := mod.ExportedFunction(startExport)
			b.ResetTimer()
			for range b.N {
				if err := start.CallWithStack(ctx, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
