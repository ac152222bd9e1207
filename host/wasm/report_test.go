package wasm

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/host/transport"
	"github.com/escouade-dev/escouade-plugin/internal/reactortest"
	"github.com/escouade-dev/escouade-plugin/internal/testutil"
	"github.com/escouade-dev/escouade-plugin/jsrt"
	"github.com/escouade-dev/escouade-plugin/manifest"
)

// TestReportRows prints, in one run, the rows of the module and JS-bundle
// targets side by side with their ratios (docs/PERFORMANCE.md, sections
// "Modules" and "JS bundles"):
//
//	ESCOUADE_PERF=1 go test -run TestReportRows -v ./host/wasm
//
// Every row is one testing.Benchmark of a round trip (a line written, its
// answer read) or of a start, so the ratios are of the same minute.
func TestReportRows(t *testing.T) {
	if os.Getenv("ESCOUADE_PERF") != "1" {
		t.Skip("ESCOUADE_PERF=1 runs the report")
	}
	rows := &report{t: t}
	moduleRows(t, rows)
	jsRows(t, rows)
	rows.print()
}

// report collects named figures and prints them with their ratios.
type report struct {
	t     *testing.T
	lines []string
	ns    map[string]float64
}

func (r *report) add(name string, res testing.BenchmarkResult) float64 {
	if r.ns == nil {
		r.ns = map[string]float64{}
	}
	ns := float64(res.T.Nanoseconds()) / float64(max(res.N, 1))
	r.ns[name] = ns
	r.lines = append(r.lines, fmt.Sprintf("| %s | %s |", name, dur(ns)))
	return ns
}

func (r *report) note(format string, args ...any) {
	r.lines = append(r.lines, fmt.Sprintf(format, args...))
}

func (r *report) ratio(label, a, b string, target float64) {
	x := r.ns[a] / r.ns[b]
	met := "yes"
	if target > 0 && x > target {
		met = "no"
	}
	if target == 0 {
		met = "-"
	}
	r.lines = append(r.lines, fmt.Sprintf("| %s: %s ÷ %s | **%.2f×** (target %s, met %s) |", label, a, b, x, targetText(target), met))
}

func targetText(x float64) string {
	if x == 0 {
		return "none"
	}
	return fmt.Sprintf("≤ %.1f×", x)
}

func (r *report) print() {
	r.t.Logf("GOMAXPROCS=%d, %s/%s, %s\n%s", runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, runtime.Version(), strings.Join(r.lines, "\n"))
}

func dur(ns float64) string {
	switch {
	case ns >= 1e6:
		return fmt.Sprintf("%.1f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.1f µs", ns/1e3)
	}
	return fmt.Sprintf("%.0f ns", ns)
}

// moduleRows: the minimal reactor against a direct call of its export and
// a command's stdin/stdout turn; the Go kit's echo as a module through the
// transport against the same source as a process over pipes; start and
// idle memory of the Go reactor.
func moduleRows(t *testing.T, r *report) {
	tr := newTransport(t, Options{})
	cReactor := launch(t, tr, transport.LaunchSpec{Manifest: pluginDir(t, fixture(t, "c-reactor"), nil)})
	cCommand := launch(t, tr, transport.LaunchSpec{Manifest: pluginDir(t, fixture(t, "c-command"), nil)})
	r.note("| **Modules** | per op |\n|---|---:|")
	r.add("minimal reactor, transport", testing.Benchmark(func(b *testing.B) { roundTrips(b, cReactor.Stdin(), cReactor.Stdout()) }))
	r.add("minimal reactor, direct wazero call, checks", testing.Benchmark(func(b *testing.B) { directTurns(b, "c-reactor", true) }))
	r.add("minimal reactor, direct wazero call, no checks", testing.Benchmark(func(b *testing.B) { directTurns(b, "c-reactor", false) }))
	r.add("minimal command, transport (stdin/stdout turn)", testing.Benchmark(func(b *testing.B) { roundTrips(b, cCommand.Stdin(), cCommand.Stdout()) }))
	r.add("cat, process over pipes", testing.Benchmark(catTrips))

	module, process := kitBuilds(t)
	kitMod := launch(t, tr, transport.LaunchSpec{Manifest: pluginDir(t, module, nil)})
	r.add("kit echo, module through the transport", testing.Benchmark(func(b *testing.B) { kitTrips(b, kitMod.Stdin(), kitMod.Stdout()) }))
	cmd := exec.Command(process)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = in.Close(); _ = cmd.Wait() }()
	r.add("kit echo, process over pipes", testing.Benchmark(func(b *testing.B) { kitTrips(b, in, out) }))
	r.ratio("host overhead", "minimal reactor, transport", "minimal command, transport (stdin/stdout turn)", 1.5)
	r.ratio("host overhead", "minimal reactor, transport", "minimal reactor, direct wazero call, checks", 0)
	r.ratio("kit", "kit echo, module through the transport", "kit echo, process over pipes", 2)

	m := pluginDir(t, fixture(t, "reactor"), nil)
	if err := tr.Precompile(context.Background(), m, nil); err != nil {
		t.Fatal(err)
	}
	r.add("Go reactor start to first answer, warm cache", testing.Benchmark(func(b *testing.B) {
		for range b.N {
			firstAnswer(b, tr, m)
		}
	}))
	r.add("Go reactor start to first answer, cold", testing.Benchmark(func(b *testing.B) {
		for range b.N {
			cold, err := New(context.Background(), Options{CacheDir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			firstAnswer(b, cold, m)
			_ = cold.Close(context.Background())
		}
	}))
	r.note("| Go reactor idle instance | %.1f MB |", idleMB(t, tr, m, `{"jsonrpc":"2.0","id":1,"method":"echo"}`, 10))
}

func catTrips(b *testing.B) {
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
}

// kitInitialize is the initialize request both kit builds get first.
const kitInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"escouade":{"version":"2.2.0"},"plugin":{"id":"dev.escouade.test","version":"1.1.0"},"lang":"fr","capabilities":{"batch":true,"secrets":true,"settings":true,"log":true,"attach":true}}}` + "\n"

const kitEcho = `{"jsonrpc":"2.0","id":2,"method":"t/echo","params":{"text":"hello"}}` + "\n"

// kitTrips initializes a kit plugin (once per reader) and times t/echo.
var kitReaders sync.Map // io.Reader → *bufio.Reader

func kitTrips(b *testing.B, in io.Writer, out io.Reader) {
	v, loaded := kitReaders.LoadOrStore(out, bufio.NewReader(out))
	rd := v.(*bufio.Reader)
	if !loaded {
		lineTrip(b, in, rd, kitInitialize)
	}
	b.ResetTimer()
	for range b.N {
		lineTrip(b, in, rd, kitEcho)
	}
}

func lineTrip(b *testing.B, in io.Writer, rd *bufio.Reader, line string) {
	if _, err := io.WriteString(in, line); err != nil {
		b.Fatal(err)
	}
	if _, err := rd.ReadSlice('\n'); err != nil {
		b.Fatal(err)
	}
}

// kitBuilds builds kit/testdata/turns as a module and as a process.
func kitBuilds(t *testing.T) (module []byte, process string) {
	dir := t.TempDir()
	src := filepath.Join("..", "..", "kit", "testdata", "turns")
	wasmPath := filepath.Join(dir, "turns.wasm")
	process = filepath.Join(dir, "turns")
	if err := reactortest.Build(src, wasmPath); err != nil {
		t.Fatal(err)
	}
	if err := testutil.GoBuild(src, process); err != nil {
		t.Fatal(err)
	}
	module, err := os.ReadFile(wasmPath)
	if err != nil {
		t.Fatal(err)
	}
	return module, process
}

// idleMB is the Go heap each of n idle instances holds, its linear memory
// included, once it answered first.
func idleMB(t *testing.T, tr *Transport, m *manifest.Manifest, first string, n int) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	progs := make([]transport.Program, n)
	for i := range progs {
		progs[i] = launch(t, tr, transport.LaunchSpec{Manifest: m})
		if _, err := io.WriteString(progs[i].Stdin(), first+"\n"); err != nil {
			t.Fatal(err)
		}
		if _, err := bufio.NewReader(progs[i].Stdout()).ReadSlice('\n'); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	for _, p := range progs {
		_ = p.Stop(context.Background())
	}
	return float64(int64(after.HeapInuse)-int64(before.HeapInuse)) / float64(n) / (1 << 20)
}

// jsEcho answers each request with its params; jsrt's benchmarks use the
// same source.
const jsEcho = `import { createInterface } from 'node:readline';
const rl = createInterface({ input: process.stdin });
rl.on('line', async (l) => { const m = JSON.parse(l); await null; process.stdout.write(JSON.stringify({jsonrpc:'2.0', id: m.id, result: m.params}) + '\n'); });
`

const jsLine = `{"jsonrpc":"2.0","id":1,"method":"hooks/message","params":{"text":"hello world","channel":"general","n":[1,2,3]}}` + "\n"

// jsRows: the bare echo bundle and hello-js in the engine through the
// transport against the same bundles under node over pipes; starts,
// idle memory, 20 instances at once.
func jsRows(t *testing.T, r *report) {
	node, err := exec.LookPath("node")
	if err != nil {
		r.note("| JS bundles | skipped: no node |")
		return
	}
	echoDir := t.TempDir()
	stamp := "/*! @escouade-dev/plugin v0.3.0 */\n"
	if err := os.MkdirAll(filepath.Join(echoDir, "dist"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(echoDir, "dist", "plugin.mjs"), []byte(stamp+jsEcho), 0o644); err != nil {
		t.Fatal(err)
	}
	echoM := &manifest.Manifest{ID: "dev.escouade.echo", Dir: echoDir, Run: &manifest.Run{JS: "dist/plugin.mjs"}}
	hello, err := manifest.Load(filepath.Join("..", "..", "examples", "hello-js"), manifest.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tr := newTransport(t, Options{JS: jsrt.New()})
	r.note("| **JS bundles** | per op |\n|---|---:|")
	echoProg := launch(t, tr, transport.LaunchSpec{Manifest: echoM})
	r.add("bare echo, engine through the transport", testing.Benchmark(func(b *testing.B) { jsTrips(b, echoProg.Stdin(), echoProg.Stdout(), jsLine) }))
	nodeIn, nodeOut := nodeProcess(t, node, filepath.Join(echoDir, "dist", "plugin.mjs"))
	r.add("bare echo, node process over pipes", testing.Benchmark(func(b *testing.B) { jsTrips(b, nodeIn, nodeOut, jsLine) }))
	r.ratio("JS echo", "bare echo, engine through the transport", "bare echo, node process over pipes", 3)

	helloProg := launch(t, tr, transport.LaunchSpec{Manifest: hello})
	r.add("hello-js hello/echo, engine through the transport", testing.Benchmark(func(b *testing.B) { helloTrips(b, helloProg.Stdin(), helloProg.Stdout()) }))
	hin, hout := nodeProcess(t, node, filepath.Join(hello.Dir, filepath.FromSlash(hello.Run.JS)))
	r.add("hello-js hello/echo, node process over pipes", testing.Benchmark(func(b *testing.B) { helloTrips(b, hin, hout) }))
	r.ratio("hello-js", "hello-js hello/echo, engine through the transport", "hello-js hello/echo, node process over pipes", 3)

	r.add("hello-js start to initialize answered, warm cache", testing.Benchmark(func(b *testing.B) {
		for range b.N {
			initAnswer(b, tr, hello)
		}
	}))
	r.add("hello-js start to initialize answered, cold (first compile)", testing.Benchmark(func(b *testing.B) {
		for range b.N {
			cold, err := New(context.Background(), Options{JS: jsrt.New(), CacheDir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			initAnswer(b, cold, hello)
			_ = cold.Close(context.Background())
		}
	}))
	r.note("| hello-js idle instance | %.1f MB (target ≤ 4 MB) |", idleMB(t, tr, hello, strings.TrimSpace(kitInitialize), 10))
	r.add("20 hello-js instances started at once, all initialized", testing.Benchmark(func(b *testing.B) {
		for range b.N {
			var wg sync.WaitGroup
			for range 20 {
				wg.Go(func() { initAnswer(b, tr, hello) })
			}
			wg.Wait()
		}
	}))
}

const helloEcho = `{"jsonrpc":"2.0","id":2,"method":"hello/echo","params":{"text":"hello world","channel":"general","n":[1,2,3]}}` + "\n"

// helloTrips initializes hello-js (once per reader) and times hello/echo.
func helloTrips(b *testing.B, in io.Writer, out io.Reader) {
	v, loaded := kitReaders.LoadOrStore(out, bufio.NewReader(out))
	rd := v.(*bufio.Reader)
	if !loaded {
		lineTrip(b, in, rd, kitInitialize)
	}
	b.ResetTimer()
	for range b.N {
		lineTrip(b, in, rd, helloEcho)
	}
}

func jsTrips(b *testing.B, in io.Writer, out io.Reader, line string) {
	v, _ := kitReaders.LoadOrStore(out, bufio.NewReader(out))
	rd := v.(*bufio.Reader)
	lineTrip(b, in, rd, line)
	b.ResetTimer()
	for range b.N {
		lineTrip(b, in, rd, line)
	}
}

// initAnswer launches m, sends initialize and waits for its answer.
func initAnswer(b *testing.B, tr *Transport, m *manifest.Manifest) {
	prog, err := tr.Launch(context.Background(), transport.LaunchSpec{Manifest: m})
	if err != nil {
		b.Error(err)
		return
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = prog.Stop(ctx)
	}()
	if _, err := io.WriteString(prog.Stdin(), kitInitialize); err != nil {
		b.Error(err)
		return
	}
	if _, err := bufio.NewReader(prog.Stdout()).ReadSlice('\n'); err != nil {
		b.Error(err)
	}
}

func nodeProcess(t *testing.T, node, script string) (io.Writer, io.Reader) {
	cmd := exec.Command(node, script)
	cmd.Dir = filepath.Dir(script)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = in.Close(); _ = cmd.Wait() })
	return in, out
}
