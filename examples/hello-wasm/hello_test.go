package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/host/wasm"
	"github.com/escouade-dev/escouade-plugin/host/wasm/reactortest"
	"github.com/escouade-dev/escouade-plugin/internal/testutil"
	"github.com/escouade-dev/escouade-plugin/keychain"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/registry"
	"github.com/escouade-dev/escouade-plugin/services"
	timersvc "github.com/escouade-dev/escouade-plugin/services/timer"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// testTimeout bounds every wait of a test; building and compiling the
// module comes before it.
const testTimeout = 30 * time.Second

// cacheDir keeps the compiled module for every test of the package: the
// same source builds the same plugin.wasm, and compiling it (with the race
// detector, seconds) is most of a test.
var cacheDir string

func TestMain(m *testing.M) {
	var err error
	if cacheDir, err = os.MkdirTemp("", "hello-wasm-cache-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(cacheDir)
	os.Exit(code)
}

func TestManifest(t *testing.T) {
	m, err := manifest.Load(".", manifest.LoadOptions{})
	if err != nil {
		t.Fatalf("manifest.Load: %v", err)
	}
	if got := m.Run.Kind(); got != manifest.RunWASM {
		t.Errorf("run is %q, want wasm: the host loads plugin.wasm beside the manifest", got)
	}
	if diff := cmp.Diff([]string{tokenKey}, m.Permissions.Secrets); diff != "" {
		t.Errorf("permissions.secrets (-want +got):\n%s", diff)
	}
	if got := string(m.Contributes.Settings[greetingSetting].Default); got != `"`+defaultGreeting+`"` {
		t.Errorf("the greeting setting's default is %s, want %q", got, defaultGreeting)
	}
}

// testHost answers the plugin as Escouade would: a token, the user's
// settings, and, for the module, the timer service.
type testHost struct {
	*reactortest.Host
	timers *timersvc.Service
}

type wirePeer struct{ wire reactortest.Wire }

func (p wirePeer) Notify(method string, params any) error {
	line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	if err != nil {
		return err
	}
	return p.wire.Send(line)
}

func newHost(t *testing.T, wire reactortest.Wire, timers bool) *testHost {
	h := &testHost{Host: &reactortest.Host{Wire: wire}}
	if timers {
		h.timers = timersvc.New(timersvc.Config{Peer: wirePeer{wire}})
		t.Cleanup(func() { h.timers.Close() })
	}
	h.Serve = h.serve
	return h
}

func (h *testHost) serve(method string, params json.RawMessage) (any, error) {
	switch method {
	case "secrets/get":
		return "s3cret", nil
	case "settings/get":
		return map[string]any{"greeting": "Bonjour", "shout": false}, nil
	}
	if h.timers == nil { // a process: timer/* is for modules
		return nil, &reactortest.RPCError{Code: -32601, Message: "Method not found"}
	}
	handle, ok := h.timers.Methods()[method]
	if !ok {
		return nil, &reactortest.RPCError{Code: -32601, Message: "Method not found"}
	}
	res, err := handle(context.Background(), params)
	var refusal *services.Error
	if errors.As(err, &refusal) {
		return nil, &reactortest.RPCError{Code: refusal.Code, Message: refusal.Message}
	}
	return res, err
}

// conversation is what both builds are told; each line but the event
// gets one answer.
var conversation = []string{
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"escouade":{"version":"2.2.0"},"plugin":{"id":"dev.escouade.example.hello-wasm","version":"0.1.0"},"lang":"fr","capabilities":{"batch":true,"secrets":true,"settings":true,"log":true,"attach":true}}}`,
	`{"jsonrpc":"2.0","id":2,"method":"hello/greet","params":{"name":"Ada"}}`,
	`{"jsonrpc":"2.0","id":3,"method":"hello/greet","params":{"name":"Grace","delayMs":25}}`,
	`{"jsonrpc":"2.0","id":4,"method":"hello/greet","params":{}}`,
	`{"jsonrpc":"2.0","id":5,"method":"hello/echo","params":{"a":[1,"é"]}}`,
	`{"jsonrpc":"2.0","method":"event/ticket.column","params":{"ticket":"T-1","column":"done"}}`,
	`{"jsonrpc":"2.0","id":6,"method":"shutdown"}`,
}

var want = []string{
	`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"capabilities":{"attach":false,"batch":true}}}`,
	`{"jsonrpc":"2.0","id":2,"result":{"text":"Bonjour, Ada!","emoji":"🙂","token":true,"waited":0}}`,
	`{"jsonrpc":"2.0","id":3,"result":{"text":"Bonjour, Grace!","emoji":"🙂","token":true,"waited":25}}`,
	`{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid params: name is required"}}`,
	`{"jsonrpc":"2.0","id":5,"result":{"a":[1,"é"]}}`,
	`{"jsonrpc":"2.0","id":6,"result":null}`,
}

var wantNotes = []string{
	`log {"level":"info","message":"greeted Ada"}`,
	`log {"level":"info","message":"greeted Grace"}`,
	`log {"level":"info","message":"ticket.column: {\"ticket\":\"T-1\",\"column\":\"done\"}"}`,
}

func talk(t *testing.T, h *testHost) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	var answers []string
	for i, line := range conversation {
		if i == 5 { // the event: no answer
			if err := h.Send(line); err != nil {
				t.Fatal(err)
			}
			continue
		}
		answer, err := h.Roundtrip(ctx, line)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		answers = append(answers, answer)
	}
	// The event's log may come after shutdown's answer: read to the end.
	more, err := h.Drain(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return append(answers, more...)
}

// TestModule builds plugin.wasm as build.sh does, beside the manifest in
// a plugin folder, and plays the host against it through the host's module
// transport, which loads plugin.wasm and mounts the root JSON files at
// /plugin.
func TestModule(t *testing.T) {
	m := installed(t)
	ctx := context.Background()
	tr, err := wasm.New(ctx, wasm.Options{CacheDir: cacheDir})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close(ctx)
	stderr := &testutil.SyncBuffer{}
	spec := host.LaunchSpecOf(m)
	spec.Stderr = func(line string) { fmt.Fprintln(stderr, line) }
	prog, err := tr.Launch(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer prog.Stop(ctx, transport.StopOptions{})
	h := newHost(t, reactortest.NewStreamWire(prog.Stdin(), prog.Stdout()), true)

	if diff := cmp.Diff(want, talk(t, h)); diff != "" {
		t.Errorf("answers (-want +got):\n%s\nstderr:\n%s", diff, stderr)
	}
	if diff := cmp.Diff(wantNotes, h.Notes); diff != "" {
		t.Errorf("notifications (-want +got):\n%s", diff)
	}
	wantAsked := []string{
		`settings/get {}`, `secrets/get {"key":"token"}`,
		`timer/set {"ms":25}`, `settings/get {}`, `secrets/get {"key":"token"}`,
	}
	if diff := cmp.Diff(wantAsked, h.Asked); diff != "" {
		t.Errorf("calls to the host (-want +got):\n%s", diff)
	}
	<-prog.Done() // talk read stdout to its end
	if exit := prog.Exit(); exit.Kind != transport.Exited || exit.Code != 0 {
		t.Errorf("the instance after shutdown: %v, want exit code 0", exit)
	}
	if got := stderr.String(); got != "hello-wasm: greeting Ada\nhello-wasm: greeting Grace\n" {
		t.Errorf("stderr = %q", got)
	}
}

// TestProcess builds the same source as a process and checks it answers
// as the module does; it keeps its own timers.
func TestProcess(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "hello-wasm")
	if err := testutil.GoBuild(".", bin); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin) // in the plugin folder, as the host starts a process
	stderr := &testutil.SyncBuffer{}
	cmd.Stderr = stderr
	wire, err := reactortest.StartProcess(cmd)
	if err != nil {
		t.Fatal(err)
	}
	h := newHost(t, wire, false)
	if diff := cmp.Diff(want, talk(t, h)); diff != "" {
		t.Errorf("answers (-want +got):\n%s\nstderr:\n%s", diff, stderr)
	}
	if diff := cmp.Diff(wantNotes, h.Notes); diff != "" {
		t.Errorf("notifications (-want +got):\n%s", diff)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("the process after shutdown: %v", err)
	}
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(fmt.Errorf("copy %s: %w", from, err))
	}
}

// BenchmarkEcho times one hello/echo call, line in and line out, to the
// module through the host's module transport and to the process build of
// the same source through its pipes.
func BenchmarkEcho(b *testing.B) {
	ctx := context.Background()
	init := []byte(conversation[0])
	echoLine := []byte(`{"jsonrpc":"2.0","id":2,"method":"hello/echo","params":{"text":"hello"}}`)
	run := func(b *testing.B, w reactortest.Wire) {
		if err := w.Send(init); err != nil {
			b.Fatal(err)
		}
		if _, err := w.Receive(ctx); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if err := w.Send(echoLine); err != nil {
				b.Fatal(err)
			}
			if _, err := w.Receive(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("module", func(b *testing.B) {
		m := installed(b)
		tr, err := wasm.New(ctx, wasm.Options{CacheDir: cacheDir})
		if err != nil {
			b.Fatal(err)
		}
		defer tr.Close(ctx)
		prog, err := tr.Launch(ctx, host.LaunchSpecOf(m))
		if err != nil {
			b.Fatal(err)
		}
		defer prog.Stop(ctx, transport.StopOptions{})
		run(b, reactortest.NewStreamWire(prog.Stdin(), prog.Stdout()))
	})
	b.Run("process", func(b *testing.B) {
		bin := filepath.Join(b.TempDir(), "hello-wasm")
		if err := testutil.GoBuild(".", bin); err != nil {
			b.Fatal(err)
		}
		cmd := exec.Command(bin)
		w, err := reactortest.StartProcess(cmd)
		if err != nil {
			b.Fatal(err)
		}
		defer cmd.Wait()
		defer w.CloseStdin()
		run(b, w)
	})
}

// installed is the plugin folder as the host finds it once installed: the
// manifest, the root JSON files and plugin.wasm, built as build.sh does.
func installed(t testing.TB) *manifest.Manifest {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{manifest.FileName, greetingsFile} {
		copyFile(t, name, filepath.Join(dir, name))
	}
	if err := reactortest.Build(".", filepath.Join(dir, wasm.ModuleFile)); err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Load(dir, manifest.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestThroughTheHost runs plugin.wasm in the host as the app does: the
// module transport for run.wasm and the timer service of module programs.
func TestThroughTheHost(t *testing.T) {
	m := installed(t)
	ctx := context.Background()
	tr, err := wasm.New(ctx, wasm.Options{CacheDir: cacheDir})
	if err != nil {
		t.Fatal(err)
	}
	// As install does: the first start then finds the module compiled,
	// and the call's delay does not cover a compile.
	if err := tr.Precompile(ctx, m, func(string) {}); err != nil {
		t.Fatal(err)
	}
	kc := keychain.NewMemory()
	if err := kc.Set(keychain.Service, keychain.PluginName(m.ID, tokenKey), "hunter2"); err != nil {
		t.Fatal(err)
	}
	h := host.New(host.Options{
		Home: t.TempDir(), Keychain: kc, StopGrace: 200 * time.Millisecond,
		Transports: map[manifest.RunKind]transport.Transport{manifest.RunWASM: tr},
		ModuleServices: []host.ServiceMaker{func(_ context.Context, env host.ServiceEnv) (services.Service, error) {
			return timersvc.New(timersvc.Config{Peer: env.Peer, Journal: env.Journal}), nil
		}},
	})
	granted := m.Permissions
	cfg := host.Config{Settings: map[string]json.RawMessage{"greeting": json.RawMessage(`"Hi"`), "shout": json.RawMessage(`true`)},
		Admit: registry.AnyFolder, Granted: &granted}
	p, err := h.Add(m, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// The plugin's log notifications are served beside its answers: the
	// line it logged before answering may be journaled just after the
	// answer came, so it is waited for before the host closes.
	greeted := make(chan struct{})
	var greetedOnce sync.Once
	stopWatching := p.Journal().Subscribe(func(line string) {
		if strings.Contains(line, " log.info greeted Ada") {
			greetedOnce.Do(func() { close(greeted) })
		}
	})
	defer stopWatching()
	callCtx, cancel := context.WithTimeout(ctx, testTimeout)
	defer cancel()
	o := p.Call(callCtx, "hello/greet", map[string]any{"name": "Ada", "delayMs": 20})
	if o.IsDefault() || o.Error != nil {
		t.Fatalf("hello/greet: %+v (error %v); journal:\n%s", o, o.Error, journalText(p))
	}
	if diff := cmp.Diff(`{"text":"HI, ADA!","emoji":"👋","token":true,"waited":20}`, string(o.Result)); diff != "" {
		t.Errorf("hello/greet (-want +got):\n%s", diff)
	}
	select {
	case <-greeted:
	case <-callCtx.Done():
		t.Errorf("the journal never got the plugin's log line:\n%s", journalText(p))
	}
	if err := h.Close(ctx); err != nil {
		t.Errorf("Close: %v", err)
	}
	text := journalText(p)
	for _, want := range []string{" log.info greeted Ada", " stderr hello-wasm: greeting Ada", " secret "} {
		if !strings.Contains(text, want) {
			t.Errorf("the journal lacks %q:\n%s", want, text)
		}
	}
	for _, unwanted := range []string{"hunter2", " crash ", " refused "} {
		if strings.Contains(text, unwanted) {
			t.Errorf("the journal holds %q:\n%s", unwanted, text)
		}
	}
}

func journalText(p *host.Plugin) string {
	lines, _ := p.Journal().Tail(500)
	return strings.Join(lines, "\n")
}
