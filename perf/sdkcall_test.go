package perf

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/host/wasm"
	"github.com/escouade-dev/escouade-plugin/jsrt"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// BenchmarkSDKCall prices the JS SDK's per-call work inside the engine:
// hello-js's hello/echo (the SDK's decode, dispatch, context and encode
// around a handler that returns its params) against a bare echo bundle
// (JSON.parse, one promise job, JSON.stringify), both run by the host's
// JS engine through the module transport. The two take turns, a block of
// round trips each, so that the load of the moment weighs on both alike
// while neither runs beside the other's end of turn; it reports the
// median round trip of each and their ratio:
//
//	cd perf && go test -run '^$' -bench SDKCall -benchtime 3000x .
//
// ESCOUADE_SDKCALL_PLUGIN names another folder to measure in hello-js's
// place (a copy of it holding an older bundle, to compare two SDKs).
func BenchmarkSDKCall(b *testing.B) {
	tr, err := wasm.New(context.Background(), wasm.Options{JS: jsrt.New(), CacheDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = tr.Close(context.Background()) })

	bare := startBundle(b, tr, bareEchoPlugin(b))
	helloDir := filepath.Join("..", "examples", "hello-js")
	if dir := os.Getenv("ESCOUADE_SDKCALL_PLUGIN"); dir != "" {
		helloDir = dir
	}
	hello, err := manifest.Load(helloDir, manifest.LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	sdk := startBundle(b, tr, hello)
	sdk.trip(b, sdkInitialize)

	// Warm both (the engine's first turns, the bundles' first calls).
	bare.trips(b, bareEchoLine, 50, nil)
	sdk.trips(b, helloEchoLine, 50, nil)
	bareTimes := make([]time.Duration, 0, b.N)
	sdkTimes := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for done := 0; done < b.N; done += sdkCallBlock {
		n := min(sdkCallBlock, b.N-done)
		bareTimes = bare.trips(b, bareEchoLine, n, bareTimes)
		sdkTimes = sdk.trips(b, helloEchoLine, n, sdkTimes)
	}
	b.StopTimer()
	// Medians: a trip the scheduler delayed does not move them.
	bareMedian, sdkMedian := median(bareTimes), median(sdkTimes)
	b.ReportMetric(float64(bareMedian.Nanoseconds()), "bare-echo-ns")
	b.ReportMetric(float64(sdkMedian.Nanoseconds()), "hello-echo-ns")
	b.ReportMetric(float64(sdkMedian)/float64(bareMedian), "hello/bare")
	b.ReportMetric(0, "ns/op") // the time of a pair says nothing of its own
}

// sdkCallBlock is how many round trips one side makes before the other's
// turn: enough that a side's trips follow their own, few enough that the
// two sides sample the same moments of a loaded machine.
const sdkCallBlock = 50

// The lines of the benchmark: the same params for both, as the host writes
// them (the app's id, then method, then params).
const (
	sdkInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"escouade":{"version":"2.2.0"},"plugin":{"id":"dev.escouade.hello-js","version":"1.0.0"},"lang":"fr","capabilities":{"batch":true,"secrets":true,"settings":true,"log":true,"attach":true}}}` + "\n"
	helloEchoLine = `{"jsonrpc":"2.0","id":2,"method":"hello/echo","params":{"text":"hello world","channel":"general","n":[1,2,3]}}` + "\n"
	bareEchoLine  = `{"jsonrpc":"2.0","id":2,"method":"hooks/message","params":{"text":"hello world","channel":"general","n":[1,2,3]}}` + "\n"
)

// bareEcho is the least a bundle does per call: the engine's own echo row.
// The stamp is the SDK's, which the engine's bundle check asks for.
const bareEcho = `/*! @escouade-dev/plugin v0.3.0 */
import { createInterface } from 'node:readline';
const rl = createInterface({ input: process.stdin });
rl.on('line', async (l) => { const m = JSON.parse(l); await null; process.stdout.write(JSON.stringify({jsonrpc:'2.0', id: m.id, result: m.params}) + '\n'); });
`

func bareEchoPlugin(b *testing.B) *manifest.Manifest {
	dir := b.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "dist"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "dist", "plugin.mjs"), []byte(bareEcho), 0o644); err != nil {
		b.Fatal(err)
	}
	return &manifest.Manifest{ID: "dev.escouade.echo", Dir: dir, Run: &manifest.Run{JS: "dist/plugin.mjs"}}
}

// bundleSide is one bundle's instance, read line by line.
type bundleSide struct {
	prog transport.Program
	in   io.Writer
	out  *bufio.Reader
}

func startBundle(b *testing.B, tr *wasm.Transport, m *manifest.Manifest) *bundleSide {
	prog, err := tr.Launch(context.Background(), host.LaunchSpecOf(m))
	if err != nil {
		b.Fatalf("%s: %v", m.ID, err)
	}
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = prog.Stop(ctx, transport.StopOptions{})
	})
	return &bundleSide{prog: prog, in: prog.Stdin(), out: bufio.NewReader(prog.Stdout())}
}

// trips makes n round trips of line, appending the time of each to times.
func (s *bundleSide) trips(b *testing.B, line string, n int, times []time.Duration) []time.Duration {
	for range n {
		times = append(times, s.trip(b, line))
	}
	return times
}

// trip writes line and reads one answer line, and says how long it took.
func (s *bundleSide) trip(b *testing.B, line string) time.Duration {
	start := time.Now()
	if _, err := io.WriteString(s.in, line); err != nil {
		s.ended(b, err)
	}
	if _, err := s.out.ReadSlice('\n'); err != nil {
		s.ended(b, err)
	}
	return time.Since(start)
}

// ended fails the benchmark with the reason the instance gave, which says
// more than the closed pipe (a start past its limit under -race, say).
func (s *bundleSide) ended(b *testing.B, err error) {
	select {
	case <-s.prog.Done():
		b.Fatalf("%v: the instance ended: %s", err, host.CrashSentence(s.prog.Exit()))
	case <-time.After(5 * time.Second):
		b.Fatal(err)
	}
}
