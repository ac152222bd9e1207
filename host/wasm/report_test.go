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
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/jsrt"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// TestReportRows prints, in one run, the rows of the module and JS-bundle
// targets side by side with their ratios (docs/PERFORMANCE.md, sections
// "Modules" and "JS bundles"):
//
//	ESCOUADE_PERF=1 go test -run TestReportRows -v ./host/wasm
//
// Every row is a testing.Benchmark of a round trip (a line written, its
// answer read) or of a start. The rows are measured in turn, round after
// round (ESCOUADE_PERF_ROUNDS, 5 by default); a ratio is taken within each
// round and the median of the rounds is printed, so that the load of the
// moment weighs on both sides of a ratio alike.
func TestReportRows(t *testing.T) {
	if os.Getenv("ESCOUADE_PERF") != "1" {
		t.Skip("ESCOUADE_PERF=1 runs the report")
	}
	rounds := 5
	if n, err := strconv.Atoi(os.Getenv("ESCOUADE_PERF_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	r := &report{}
	moduleRows(t, r)
	jsRows(t, r)
	for range rounds {
		r.round()
	}
	t.Logf("GOMAXPROCS=%d, %s/%s, %s, %d rounds, medians\n%s", runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, runtime.Version(), rounds, r.table())
}

// report holds the rows, what each round measured, and the ratios to print.
type report struct {
	rows   []row
	ratios []ratio
	notes  []string
}

type row struct {
	section, name string
	fn            func(*testing.B) // timed per op; nil: value measures once a round
	value         func() float64   // a figure of its own (MB), when fn is nil
	unit          string
	got           []float64
}

type ratio struct {
	label, a, b string
	target      float64 // 0: none
}

func (r *report) bench(section, name string, fn func(*testing.B)) {
	r.rows = append(r.rows, row{section: section, name: name, fn: fn})
}

func (r *report) measure(section, name, unit string, value func() float64) {
	r.rows = append(r.rows, row{section: section, name: name, value: value, unit: unit})
}

func (r *report) ratio(label, a, b string, target float64) {
	r.ratios = append(r.ratios, ratio{label, a, b, target})
}

func (r *report) round() {
	for i := range r.rows {
		row := &r.rows[i]
		if row.fn == nil {
			row.got = append(row.got, row.value())
			continue
		}
		res := testing.Benchmark(row.fn)
		row.got = append(row.got, float64(res.T.Nanoseconds())/float64(max(res.N, 1)))
	}
}

func (r *report) find(name string) []float64 {
	for _, row := range r.rows {
		if row.name == name {
			return row.got
		}
	}
	panic("no row " + name)
}

func (r *report) table() string {
	var b strings.Builder
	section := ""
	for _, row := range r.rows {
		if row.section != section {
			section = row.section
			fmt.Fprintf(&b, "\n| %s | median | range |\n|---|---:|---:|\n", section)
		}
		lo, hi := slices.Min(row.got), slices.Max(row.got)
		if row.fn == nil {
			fmt.Fprintf(&b, "| %s | %.1f %s | %.1f–%.1f |\n", row.name, median(row.got), row.unit, lo, hi)
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s–%s |\n", row.name, dur(median(row.got)), dur(lo), dur(hi))
	}
	b.WriteString("\n| ratio | median | target | met |\n|---|---:|---:|---|\n")
	for _, q := range r.ratios {
		a, c := r.find(q.a), r.find(q.b)
		per := make([]float64, len(a))
		for i := range a {
			per[i] = a[i] / c[i]
		}
		x := median(per)
		target, met := "none", "-"
		if q.target > 0 {
			target, met = fmt.Sprintf("≤ %.1f×", q.target), "yes"
			if x > q.target {
				met = "no"
			}
		}
		fmt.Fprintf(&b, "| %s: %s ÷ %s | **%.2f×** | %s | %s |\n", q.label, q.a, q.b, x, target, met)
	}
	return b.String()
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
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
	const sec = "Modules"
	tr := newTransport(t, Options{})
	cReactor := launch(t, tr, specOf(pluginDir(t, fixture(t, "c-reactor"), nil)))
	cCommand := launch(t, tr, specOf(pluginDir(t, fixture(t, "c-command"), nil)))
	r.bench(sec, "minimal reactor, transport", func(b *testing.B) { roundTrips(b, cReactor.Stdin(), cReactor.Stdout()) })
	r.bench(sec, "minimal reactor, direct wazero call, checks", func(b *testing.B) { directTurns(b, "c-reactor", true) })
	r.bench(sec, "minimal reactor, direct wazero call, no checks", func(b *testing.B) { directTurns(b, "c-reactor", false) })
	r.bench(sec, "minimal command, transport (stdin/stdout turn)", func(b *testing.B) { roundTrips(b, cCommand.Stdin(), cCommand.Stdout()) })
	r.bench(sec, "cat, process over pipes", catTrips)

	module, process := kitBuilds(t)
	kitMod := launch(t, tr, specOf(pluginDir(t, module, nil)))
	r.bench(sec, "kit echo, module through the transport", func(b *testing.B) { kitTrips(b, kitMod.Stdin(), kitMod.Stdout()) })
	in, out := startProcess(t, process)
	r.bench(sec, "kit echo, process over pipes", func(b *testing.B) { kitTrips(b, in, out) })
	r.ratio("host overhead", "minimal reactor, transport", "minimal command, transport (stdin/stdout turn)", 1.5)
	r.ratio("host overhead", "minimal reactor, transport", "minimal reactor, direct wazero call, checks", 0)
	r.ratio("host overhead", "minimal reactor, transport", "cat, process over pipes", 0)
	r.ratio("kit", "kit echo, module through the transport", "kit echo, process over pipes", 2)
	rustRows(t, r, tr, sec)

	m := pluginDir(t, fixture(t, "reactor"), nil)
	if err := tr.Precompile(context.Background(), m, nil); err != nil {
		t.Fatal(err)
	}
	r.bench(sec, "Go reactor start to first answer, warm cache", func(b *testing.B) {
		for range b.N {
			firstAnswer(b, tr, m)
		}
	})
	r.bench(sec, "Go reactor start to first answer, cold", func(b *testing.B) {
		for range b.N {
			cold, err := New(context.Background(), Options{CacheDir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			firstAnswer(b, cold, m)
			_ = cold.Close(context.Background())
		}
	})
	r.measure(sec, "Go reactor idle instance, memory (Go heap, linear memory)", "MB", func() float64 {
		return idleMB(t, tr, m, `{"jsonrpc":"2.0","id":1,"method":"echo"}`, 10)
	})
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
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	build := exec.Command(goTool, "build", "-buildmode=c-shared", "-o", wasmPath, src)
	build.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("the kit module: %v\n%s", err, b)
	}
	if b, err := exec.Command(goTool, "build", "-o", process, src).CombinedOutput(); err != nil {
		t.Fatalf("the kit process: %v\n%s", err, b)
	}
	bytes, err := os.ReadFile(wasmPath)
	if err != nil {
		t.Fatal(err)
	}
	return bytes, process
}

// idleMB is the memory each of n idle instances holds once it answered
// first. On Linux it is the growth of the process's resident memory: the
// Go heap, and the pages of the linear memories, which are reserved
// outside the Go heap (memory_mmap.go) and resident only once touched.
// Elsewhere it is the Go heap's growth, which holds the linear memories.
func idleMB(t *testing.T, tr *Transport, m *manifest.Manifest, first string, n int) float64 {
	runtime.GC()
	before := memoryInUse()
	progs := make([]transport.Program, n)
	for i := range progs {
		progs[i] = launch(t, tr, specOf(m))
		if _, err := io.WriteString(progs[i].Stdin(), first+"\n"); err != nil {
			t.Fatal(err)
		}
		if _, err := bufio.NewReader(progs[i].Stdout()).ReadSlice('\n'); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	after := memoryInUse()
	for _, p := range progs {
		_ = p.Stop(context.Background(), transport.StopOptions{})
	}
	return float64(after-before) / float64(n) / (1 << 20)
}

// memoryInUse is the process's resident memory where /proc says it, else
// the Go heap in use.
func memoryInUse() int64 {
	if b, err := os.ReadFile("/proc/self/statm"); err == nil {
		var size, resident int64
		if _, err := fmt.Sscan(string(b), &size, &resident); err == nil {
			return resident * int64(os.Getpagesize())
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapInuse)
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
	const sec = "JS bundles"
	node, err := exec.LookPath("node")
	if err != nil {
		t.Log("JS bundles left out: no node")
		return
	}
	echoDir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(echoDir, "dist"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(echoDir, "dist", "plugin.mjs"), []byte(jsStamp+jsEcho), 0o644); err != nil {
		t.Fatal(err)
	}
	echoM := &manifest.Manifest{ID: "dev.escouade.echo", Dir: echoDir, Run: &manifest.Run{JS: "dist/plugin.mjs"}}
	hello, err := manifest.Load(filepath.Join("..", "..", "examples", "hello-js"), manifest.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tr := newTransport(t, Options{JS: jsrt.New()})
	bare := newTransport(t, Options{JS: jsrt.New(), JSWithoutCloseOnContextDone: true})

	echoProg := launch(t, tr, specOf(echoM))
	echoBare := launch(t, bare, specOf(echoM))
	r.bench(sec, "bare echo, engine through the transport", func(b *testing.B) { jsTrips(b, echoProg.Stdin(), echoProg.Stdout(), jsLine) })
	r.bench(sec, "bare echo, engine without wazero's checks (reference)", func(b *testing.B) { jsTrips(b, echoBare.Stdin(), echoBare.Stdout(), jsLine) })
	nodeIn, nodeOut := nodeProcess(t, node, filepath.Join(echoDir, "dist", "plugin.mjs"))
	r.bench(sec, "bare echo, node process over pipes", func(b *testing.B) { jsTrips(b, nodeIn, nodeOut, jsLine) })

	helloProg := launch(t, tr, specOf(hello))
	helloBare := launch(t, bare, specOf(hello))
	r.bench(sec, "hello-js hello/echo, engine through the transport", func(b *testing.B) { helloTrips(b, helloProg.Stdin(), helloProg.Stdout()) })
	r.bench(sec, "hello-js hello/echo, engine without wazero's checks (reference)", func(b *testing.B) { helloTrips(b, helloBare.Stdin(), helloBare.Stdout()) })
	hin, hout := nodeProcess(t, node, filepath.Join(hello.Dir, filepath.FromSlash(hello.Run.JS)))
	r.bench(sec, "hello-js hello/echo, node process over pipes", func(b *testing.B) { helloTrips(b, hin, hout) })
	r.ratio("JS echo", "bare echo, engine through the transport", "bare echo, node process over pipes", 3)
	r.ratio("JS echo", "hello-js hello/echo, engine through the transport", "hello-js hello/echo, node process over pipes", 3)
	r.ratio("SDK", "hello-js hello/echo, engine through the transport", "bare echo, engine through the transport", 0)

	r.bench(sec, "hello-js start to initialize answered, warm cache", func(b *testing.B) {
		for range b.N {
			initAnswer(b, tr, hello)
		}
	})
	r.bench(sec, "bare echo start to its first answer, warm cache", func(b *testing.B) {
		for range b.N {
			initAnswer(b, tr, echoM)
		}
	})
	r.bench(sec, "hello-js start to initialize answered, cold (first compile)", func(b *testing.B) {
		for range b.N {
			cold, err := New(context.Background(), Options{JS: jsrt.New(), CacheDir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			initAnswer(b, cold, hello)
			_ = cold.Close(context.Background())
		}
	})
	r.measure(sec, "hello-js idle instance, memory (target ≤ 4 MB)", "MB", func() float64 {
		return idleMB(t, tr, hello, strings.TrimSpace(kitInitialize), 10)
	})
	r.bench(sec, "20 hello-js instances started at once, all initialized", func(b *testing.B) {
		for range b.N {
			var wg sync.WaitGroup
			for range 20 {
				wg.Go(func() { initAnswer(b, tr, hello) })
			}
			wg.Wait()
		}
	})
}

// jsStamp is the SDK's stamp, which the engine's bundle check asks for.
const jsStamp = "/*! @escouade-dev/plugin v0.3.0 */\n"

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
	prog, err := tr.Launch(context.Background(), specOf(m))
	if err != nil {
		b.Error(err)
		return
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = prog.Stop(ctx, transport.StopOptions{})
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
	return startCmd(t, cmd)
}

// startProcess runs a program over pipes until the test ends.
func startProcess(t *testing.T, path string) (io.Writer, io.Reader) {
	return startCmd(t, exec.Command(path))
}

func startCmd(t *testing.T, cmd *exec.Cmd) (io.Writer, io.Reader) {
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = in.Close(); _ = cmd.Wait() })
	return in, out
}
