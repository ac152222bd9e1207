package examples_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/conformance"
	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/host/wasm"
	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/jsrt"
	"github.com/escouade-dev/escouade-plugin/keychain"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/modules"
	"github.com/escouade-dev/escouade-plugin/registry"
	"github.com/escouade-dev/escouade-plugin/services"
	netsvc "github.com/escouade-dev/escouade-plugin/services/net"
	timersvc "github.com/escouade-dev/escouade-plugin/services/timer"
	"github.com/escouade-dev/escouade-plugin/transport"
	"github.com/google/go-cmp/cmp"
)

// The JS examples are run.js bundles: dist/plugin.mjs, built with the SDK
// (hello-js) or written by hand (hand-js). Each test runs the same bundle
// twice through the real host: in WASM, in the host's run.js engine, and
// under node as a process, with a manifest whose run is the node command.
// The answers must be the same.

// jsRun is one way of running a JS example's bundle.
type jsRun struct {
	name string
	// manifest turns the example's manifest into the one the host runs.
	manifest func(m *manifest.Manifest) *manifest.Manifest
	// options sets what the host needs for this run; localShared are the
	// host:port of the test's own servers, reached as local:shared.
	options func(t testing.TB, o *host.Options, localShared []string)
	// skip says why this run cannot happen here, or "".
	skip func() string
	// raw starts the bundle of m outside the host: lines written to stdin
	// go to the program as they are, its stdout comes back line by line,
	// closed at its end.
	raw func(t *testing.T, m *manifest.Manifest) (stdin io.Writer, stdout <-chan string)
}

// jsRuns lists the ways a bundle runs: under node as a process, and in
// WASM in the host's run.js engine (its module-only services wired as the
// app wires them). Both must give the same answers.
var jsRuns = []jsRun{{
	name: "node",
	manifest: func(m *manifest.Manifest) *manifest.Manifest {
		asProcess := *m
		asProcess.Run = &manifest.Run{Command: []string{"node", m.Run.JS}}
		return &asProcess
	},
	options: func(testing.TB, *host.Options, []string) {},
	skip: func() string {
		if _, err := exec.LookPath("node"); err != nil {
			return "node is not installed, so the JS examples cannot run as processes here"
		}
		return ""
	},
	raw: startNode,
}, {
	name: "wasm",
	manifest: func(m *manifest.Manifest) *manifest.Manifest {
		// The tests' HTTP server is on this machine: only local:shared
		// opens plain http to it.
		inWASM := *m
		inWASM.Permissions.Network = append(slices.Clone(m.Permissions.Network), "local:shared")
		return &inWASM
	},
	options: wasmOptions,
	skip:    func() string { return "" },
	raw:     startWASM,
}}

// wasmTransport is the module transport with the JS engine. Its turn limit
// is generous: a turn takes milliseconds, but a loaded machine running the
// race detector may hold a first one (the engine's start) past 2 s.
func wasmTransport(t testing.TB) *wasm.Transport {
	t.Helper()
	tr, err := wasm.New(context.Background(), wasm.Options{CacheDir: wasmCache(t), JS: jsrt.New(),
		TurnLimit: 30 * time.Second, DecisionTurnLimit: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// wasmOptions gives the host the module transport with the JS engine, and
// the timer and network services of module programs.
func wasmOptions(t testing.TB, o *host.Options, localShared []string) {
	t.Helper()
	tr := wasmTransport(t)
	o.Transports = map[manifest.RunKind]transport.Transport{manifest.RunJS: tr}
	o.ModuleServices = []host.ServiceMaker{
		func(_ context.Context, env host.ServiceEnv) (services.Service, error) {
			return timersvc.New(timersvc.Config{Peer: env.Peer, Journal: env.Journal}), nil
		},
		func(_ context.Context, env host.ServiceEnv) (services.Service, error) {
			return netsvc.New(netsvc.Config{PluginID: env.Manifest.ID, Granted: env.Granted, Limits: env.Manifest.Limits,
				Journal: env.Journal, Peer: env.Peer, LocalShared: localShared})
		},
	}
}

// wasmCacheDir keeps the engine's compiled code for every test of the
// package: compiling it once is most of a first start.
var wasmCacheDir struct {
	once sync.Once
	dir  string
	err  error
}

// TestMain removes the compile cache of the WASM runs once every test ran.
func TestMain(m *testing.M) {
	code := m.Run()
	if wasmCacheDir.dir != "" {
		os.RemoveAll(wasmCacheDir.dir)
	}
	os.Exit(code)
}

func wasmCache(t testing.TB) string {
	wasmCacheDir.once.Do(func() { wasmCacheDir.dir, wasmCacheDir.err = os.MkdirTemp("", "escouade-examples-wasm-cache-") })
	if wasmCacheDir.err != nil {
		t.Fatal(wasmCacheDir.err)
	}
	return wasmCacheDir.dir
}

// loadJS loads a JS example's manifest and checks it names a run.js bundle.
func loadJS(t testing.TB, dir string) *manifest.Manifest {
	t.Helper()
	m, err := manifest.Load(dir, manifest.LoadOptions{})
	if err != nil {
		t.Fatalf("manifest.Load(%s): %v", dir, err)
	}
	if m.Run.Kind() != manifest.RunJS || m.Run.JS != "dist/plugin.mjs" {
		t.Fatalf("%s: run is %+v, want {js: dist/plugin.mjs}", dir, m.Run)
	}
	return m
}

// jsHost runs a JS example through the host: it returns the plugin, its
// program started at the first call.
func jsHost(t testing.TB, run jsRun, dir string, cfg host.Config, secret string, localShared ...string) *host.Plugin {
	t.Helper()
	if why := run.skip(); why != "" {
		t.Skip(why)
	}
	m := run.manifest(loadJS(t, dir))
	kc := keychain.NewMemory()
	if secret != "" {
		if err := kc.Set(keychain.Service, keychain.PluginName(m.ID, "token"), secret); err != nil {
			t.Fatal(err)
		}
	}
	opts := host.Options{Home: t.TempDir(), Keychain: kc, StopGrace: 200 * time.Millisecond,
		Transports: map[manifest.RunKind]transport.Transport{}}
	run.options(t, &opts, localShared)
	if _, given := opts.Transports[manifest.RunProcess]; !given {
		opts.Transports[manifest.RunProcess] = modules.ProcessTransport(opts.StopGrace) // node runs as a process
	}
	h := host.New(opts)
	// A folder the test runs as a person runs their own: no consent
	// checked, all it asks granted unless the case says otherwise.
	if cfg.Admit == nil {
		cfg.Admit = registry.AnyFolder
	}
	if cfg.Granted == nil {
		granted := m.Permissions
		cfg.Granted = &granted
	}
	p, err := h.Add(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := h.Close(context.Background()); err != nil {
			t.Errorf("Close: %v", err)
		}
		journalLacksTag(t, p, "crash")
	})
	return p
}

// result calls method and decodes its result; anything else fails the test.
func result(t testing.TB, p *host.Plugin, method string, params any) any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit(t))
	defer cancel()
	o := p.Call(ctx, method, params)
	if o.IsDefault() || o.Error != nil {
		t.Fatalf("%s: %+v (error %v); journal:\n%s", method, o, o.Error, journalText(p))
	}
	var v any
	if err := json.Unmarshal(o.Result, &v); err != nil {
		t.Fatalf("%s answered %s: %v", method, o.Result, err)
	}
	return v
}

// errorCode calls method and returns the code of its error answer.
func errorCode(t *testing.T, p *host.Plugin, method string, params any) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit(t))
	defer cancel()
	o := p.Call(ctx, method, params)
	if o.Error == nil {
		t.Fatalf("%s %v: %+v, want an error", method, params, o)
	}
	return o.Error.Code
}

func journalText(p *host.Plugin) string {
	lines, _ := p.Journal().Tail(500)
	return strings.Join(lines, "\n")
}

// journalWaits waits for a journal line with that tag holding text: the
// journal is written as the host reads the program's lines.
func journalWaits(t *testing.T, p *host.Plugin, tag, text string) {
	t.Helper()
	deadline := time.Now().Add(waitLimit(t))
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		lines, _ := p.Journal().Tail(500)
		for _, l := range lines {
			if _, rest, ok := strings.Cut(l, " "); ok && strings.HasPrefix(rest, tag+" ") && strings.Contains(rest, text) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no journal line %s %q; journal:\n%s", tag, text, journalText(p))
		}
		<-tick.C
	}
}

func journalLacksTag(t testing.TB, p *host.Plugin, tag string) {
	t.Helper()
	lines, _ := p.Journal().Tail(500)
	for _, l := range lines {
		if _, rest, ok := strings.Cut(l, " "); ok && strings.HasPrefix(rest, tag+" ") {
			t.Errorf("journal line %q", l)
		}
	}
}

// TestHelloJS plays the app against hello-js through the host: greet with
// default and chosen settings, a secret, a log, a timer, a fetch, an
// event, refusals, then Close, which sends shutdown.
func TestHelloJS(t *testing.T) {
	for _, run := range jsRuns {
		t.Run(run.name, func(t *testing.T) {
			t.Run("defaults", func(t *testing.T) {
				p := jsHost(t, run, "hello-js", host.Config{}, "hunter2")
				want := map[string]any{"text": "Hello, Ada!", "emoji": "👋", "token": true, "waited": float64(0)}
				if diff := cmp.Diff(want, result(t, p, "hello/greet", map[string]any{"name": "Ada"})); diff != "" {
					t.Errorf("hello/greet (-want +got):\n%s", diff)
				}
				journalWaits(t, p, "log.info", "greeted Ada")
				journalWaits(t, p, "stderr", "hello-js: greeting Ada")
				journalWaits(t, p, "secret", "token")
				if strings.Contains(journalText(p), "hunter2") {
					t.Errorf("the journal shows the secret:\n%s", journalText(p))
				}
				checkHelloRefusals(t, p)
				p.Fact("ticket.column", map[string]string{"ticket": "T-1", "column": "done"})
				journalWaits(t, p, "log.info", `ticket.column: {"column":"done","ticket":"T-1"}`)
			})
			t.Run("settings and a timer", func(t *testing.T) {
				cfg := host.Config{Settings: map[string]json.RawMessage{"greeting": json.RawMessage(`"Hi"`), "shout": json.RawMessage(`true`)}}
				p := jsHost(t, run, "hello-js", cfg, "")
				want := map[string]any{"text": "HI, ADA!", "emoji": "👋", "token": false, "waited": float64(20)}
				if diff := cmp.Diff(want, result(t, p, "hello/greet", map[string]any{"name": "Ada", "delayMs": 20})); diff != "" {
					t.Errorf("hello/greet (-want +got):\n%s", diff)
				}
			})
			t.Run("fetch", func(t *testing.T) {
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					fmt.Fprintf(w, `{"path":%q,"accept":%q}`, r.URL.Path, r.Header.Get("Accept"))
				}))
				defer srv.Close()
				// A server that is gone: the request fails on the way.
				gone := httptest.NewServer(http.NotFoundHandler())
				gone.Close()
				p := jsHost(t, run, "hello-js", host.Config{}, "", srv.Listener.Addr().String(), gone.Listener.Addr().String())
				want := map[string]any{"status": float64(200), "type": "application/json", "body": `{"path":"/repos","accept":"application/json"}`}
				if diff := cmp.Diff(want, result(t, p, "hello/fetch", map[string]any{"url": srv.URL + "/repos"})); diff != "" {
					t.Errorf("hello/fetch (-want +got):\n%s", diff)
				}
				if got := errorCode(t, p, "hello/fetch", map[string]any{"url": gone.URL}); got != jsonrpc.ErrFailed.Code {
					t.Errorf("hello/fetch of a server that is gone: code %d, want %d", got, jsonrpc.ErrFailed.Code)
				}
				if run.name == "wasm" {
					// Only a module's requests go through the host's policy.
					if got := errorCode(t, p, "hello/fetch", map[string]any{"url": "https://example.org/"}); got != jsonrpc.ErrForbidden.Code {
						t.Errorf("hello/fetch of a host outside permissions.network: code %d, want %d", got, jsonrpc.ErrForbidden.Code)
					}
					journalWaits(t, p, "refused", "example.org is not in permissions.network")
				}
			})
		})
	}
}

func checkHelloRefusals(t *testing.T, p *host.Plugin) {
	t.Helper()
	for _, tt := range []struct {
		method string
		params any
		want   *jsonrpc.Error
	}{
		{"hello/greet", map[string]any{}, jsonrpc.ErrInvalidParams},
		{"hello/greet", map[string]any{"name": 7}, jsonrpc.ErrInvalidParams},
		{"hello/greet", map[string]any{"name": "Ada", "delayMs": -1}, jsonrpc.ErrInvalidParams},
		{"hello/nope", nil, jsonrpc.ErrMethodNotFound},
	} {
		if got := errorCode(t, p, tt.method, tt.params); got != tt.want.Code {
			t.Errorf("%s %v: code %d, want %d", tt.method, tt.params, got, tt.want.Code)
		}
	}
}

// TestHandJS plays the app against hand-js through the host: a method, one
// reading the root JSON file rules.json, a refusal, then Close.
func TestHandJS(t *testing.T) {
	for _, run := range jsRuns {
		t.Run(run.name, func(t *testing.T) {
			p := jsHost(t, run, "hand-js", host.Config{}, "")
			if diff := cmp.Diff(map[string]any{"text": "Hello, Ada!"}, result(t, p, "hand/hello", map[string]any{"name": "Ada"})); diff != "" {
				t.Errorf("hand/hello (-want +got):\n%s", diff)
			}
			want := map[string]any{"ok": false, "problems": []any{`says "spam"`}}
			if diff := cmp.Diff(want, result(t, p, "hand/check", map[string]any{"text": "no spam here"})); diff != "" {
				t.Errorf("hand/check (-want +got):\n%s", diff)
			}
			if got := errorCode(t, p, "hand/hello", map[string]any{}); got != jsonrpc.ErrInvalidParams.Code {
				t.Errorf("hand/hello without a name: code %d, want -32602", got)
			}
			if got := errorCode(t, p, "hand/nope", nil); got != jsonrpc.ErrMethodNotFound.Code {
				t.Errorf("hand/nope: code %d, want -32601", got)
			}
		})
	}
}

// TestJSExactIDs writes lines to each JS example's program directly, as
// the host would, in WASM and under node: ids come back byte for byte,
// 9007199254740993 and an escaped string included, in single messages and
// batches.
func TestJSExactIDs(t *testing.T) {
	echo := map[string]string{"hello-js": "hello/echo", "hand-js": "hand/hello"}
	for _, run := range jsRuns {
		for _, dir := range []string{"hello-js", "hand-js"} {
			t.Run(run.name+"/"+dir, func(t *testing.T) {
				if why := run.skip(); why != "" {
					t.Skip(why)
				}
				checkExactIDs(t, run, loadJS(t, dir), echo[dir])
			})
		}
	}
}

func checkExactIDs(t *testing.T, run jsRun, m *manifest.Manifest, method string) {
	t.Helper()
	stdin, lines := run.raw(t, m)
	send := func(line string) {
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":9007199254740993,"method":"initialize","params":{"protocolVersion":1}}`)
	if got := <-lines; !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":9007199254740993,"result":{"protocolVersion":1,`) {
		t.Errorf("initialize answered %s", got)
	}
	send(`{"jsonrpc":"2.0","id":"a\"b\u0041","method":"` + method + `","params":{"name":"Ada"}}`)
	if got := <-lines; !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":"a\"b\u0041","result":`) {
		t.Errorf("string id answered %s", got)
	}
	send(`[{"jsonrpc":"2.0","id":12345678901234567890,"method":"` + method + `","params":{"name":"Ada"}},{"jsonrpc":"2.0","method":"event/x"}]`)
	if got := <-lines; !strings.HasPrefix(got, `[{"jsonrpc":"2.0","id":12345678901234567890,"result":`) {
		t.Errorf("batch answered %s", got)
	}
	send(`not json`)
	if diff := cmp.Diff(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, <-lines); diff != "" {
		t.Errorf("not json (-want +got):\n%s", diff)
	}
	send(`{"jsonrpc":"2.0","id":-0,"method":"shutdown"}`)
	if diff := cmp.Diff(`{"jsonrpc":"2.0","id":-0,"result":null}`, <-lines); diff != "" {
		t.Errorf("shutdown (-want +got):\n%s", diff)
	}
	if line, open := <-lines; open {
		t.Errorf("after shutdown: %s, want the end of stdout", line)
	}
}

// startWASM launches m's bundle in the run.js engine through the module
// transport alone, without the host's supervisor.
func startWASM(t *testing.T, m *manifest.Manifest) (io.Writer, <-chan string) {
	t.Helper()
	tr := wasmTransport(t)
	stderr := &syncBuffer{}
	spec := host.LaunchSpecOf(m)
	spec.Stderr = func(line string) { fmt.Fprintln(stderr, line) }
	prog, err := tr.Launch(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		prog.Stdin().Close()
		select {
		case <-prog.Done():
		case <-time.After(waitLimit(t)):
			t.Errorf("%s did not end; stderr:\n%s", m.ID, stderr)
		}
		if exit := prog.Exit(); exit.Kind != transport.Exited || exit.Code != 0 {
			t.Errorf("%s ended: %s; stderr:\n%s", m.ID, host.CrashSentence(exit), stderr)
		}
		tr.Close(context.Background())
	})
	return prog.Stdin(), readLines(t, m, prog.Stdout(), stderr)
}

// startNode starts m's bundle under node in its folder; lines gets each
// line of its stdout and is closed at its end.
func startNode(t *testing.T, m *manifest.Manifest) (io.Writer, <-chan string) {
	t.Helper()
	cmd := exec.Command("node", m.Run.JS)
	cmd.Dir = m.Dir
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := readLines(t, m, stdout, stderr)
	t.Cleanup(func() {
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("%s exited: %v; stderr:\n%s", m.ID, err, stderr)
		}
	})
	return stdin, lines
}

// readLines gives each line of stdout; the channel is closed at its end.
func readLines(t *testing.T, m *manifest.Manifest, stdout io.Reader, stderr fmt.Stringer) <-chan string {
	raw := make(chan string, 16)
	go func() {
		defer close(raw)
		s := bufio.NewScanner(stdout)
		s.Buffer(nil, 16<<20)
		for s.Scan() {
			raw <- s.Text()
		}
	}()
	lines := make(chan string)
	go func() {
		defer close(lines)
		for {
			select {
			case l, ok := <-raw:
				if !ok {
					return
				}
				lines <- l
			case <-time.After(waitLimit(t)):
				t.Errorf("no line from %s within %v; stderr:\n%s", m.ID, waitLimit(t), stderr)
				return
			}
		}
	}()
	return lines
}

// TestJSConformance plays the conformance bench of escouade-plugin test
// against each JS example, in WASM and under node: what a host relies on,
// and hello-js's own scenarios (escouade-bench.json).
func TestJSConformance(t *testing.T) {
	for _, run := range jsRuns {
		for _, dir := range []string{"hello-js", "hand-js"} {
			t.Run(run.name+"/"+dir, func(t *testing.T) {
				if why := run.skip(); why != "" {
					t.Skip(why)
				}
				opts := conformance.Options{}
				if run.name == "wasm" {
					opts.Transports = map[manifest.RunKind]transport.Transport{manifest.RunJS: wasmTransport(t)}
				} else {
					dir = asProcessFolder(t, run, dir)
				}
				report := conformance.Run(context.Background(), dir, opts)
				if !report.OK() {
					var text strings.Builder
					report.WriteText(&text)
					t.Errorf("%s:\n%s", report.Summary(), text.String())
				}
			})
		}
	}
}

// asProcessFolder copies an example's folder with the manifest run
// rewrites (its run the node command), for what loads a folder.
func asProcessFolder(t *testing.T, run jsRun, dir string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), dir)
	if err := os.CopyFS(dst, os.DirFS(dir)); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, manifest.FileName))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	m["run"] = map[string]any{"command": run.manifest(loadJS(t, dir)).Run.Command}
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dst, manifest.FileName), out, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// BenchmarkJSEcho measures a call of the app answered by hello-js through
// the host, in WASM and under node, with small and 1 MiB params: the
// SDK's decoding and encoding, the engine's turn and the transport.
func BenchmarkJSEcho(b *testing.B) {
	for _, run := range jsRuns {
		for _, size := range []int{16, 1 << 20} {
			b.Run(fmt.Sprintf("%s/%dB", run.name, size), func(b *testing.B) {
				p := jsHost(b, run, "hello-js", host.Config{}, "")
				params := map[string]string{"text": strings.Repeat("x", size)}
				result(b, p, "hello/echo", params) // the start, outside the measure
				b.SetBytes(int64(size))
				b.ResetTimer()
				for b.Loop() {
					result(b, p, "hello/echo", params)
				}
			})
		}
	}
}
