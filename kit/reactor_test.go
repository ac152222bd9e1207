package kit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/escouade-dev/escouade-plugin/host/wasm/engine"
	"github.com/escouade-dev/escouade-plugin/host/wasm/reactortest"
	"github.com/escouade-dev/escouade-plugin/internal/testutil"
	"github.com/escouade-dev/escouade-plugin/services"
	timersvc "github.com/escouade-dev/escouade-plugin/services/timer"
	"github.com/escouade-dev/escouade-plugin/vocab"
)

// The reactor build (reactor_wasip1.go) is tested from the outside: the
// plugin of testdata/turns is built as a module and as a process, the
// module is driven turn by turn as the host's module transport does, and
// the two builds must answer alike.

// turnsPlugin is the source both builds come from.
const turnsPlugin = "./testdata/turns"

// builds holds the two builds of turnsPlugin, made once per test binary:
// compiling a Go module takes seconds, more with the race detector.
var builds struct {
	once    sync.Once
	dir     string
	rt      *reactortest.Runtime
	code    *reactortest.Code
	process string
	err     error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builds.rt != nil {
		builds.rt.Close(context.Background())
	}
	if builds.dir != "" {
		os.RemoveAll(builds.dir)
	}
	os.Exit(code)
}

// turnsBuilds builds turnsPlugin both ways, once.
func turnsBuilds(t testing.TB) (*reactortest.Code, string) {
	t.Helper()
	builds.once.Do(func() {
		builds.dir, builds.err = os.MkdirTemp("", "kit-reactor-")
		if builds.err != nil {
			return
		}
		module := filepath.Join(builds.dir, "turns.wasm")
		builds.process = filepath.Join(builds.dir, "turns")
		if builds.err = reactortest.Build(turnsPlugin, module); builds.err != nil {
			return
		}
		if builds.err = testutil.GoBuild(turnsPlugin, builds.process); builds.err != nil {
			return
		}
		builds.rt = reactortest.NewRuntime(context.Background())
		builds.code, builds.err = builds.rt.Compile(context.Background(), module)
	})
	if builds.err != nil {
		t.Fatal(builds.err)
	}
	return builds.code, builds.process
}

// startModule starts an instance of the module build.
func startModule(t testing.TB, o reactortest.Options) *reactortest.Module {
	t.Helper()
	code, _ := turnsBuilds(t)
	if o.Stderr == nil {
		o.Stderr = &testutil.SyncBuffer{}
	}
	m, err := code.Start(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(context.Background()) })
	return m
}

// startProcess starts the process build.
func startProcess(t testing.TB) *reactortest.ProcessWire {
	t.Helper()
	_, bin := turnsBuilds(t)
	cmd := exec.Command(bin)
	stderr := &testutil.SyncBuffer{}
	cmd.Stderr = stderr
	w, err := reactortest.StartProcess(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		w.CloseStdin()
		if err := cmd.Wait(); err != nil {
			t.Errorf("the process build: %v\n%s", err, stderr)
		}
	})
	return w
}

func testContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// request is a JSON-RPC request line.
func request(id int, method, params string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)
}

// result is the answer line of a successful request.
func result(id int, value string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":%s}`, id, value)
}

const initAnswer = `{"protocolVersion":1,"capabilities":{"attach":false,"batch":true}}`

// turn appends lines to the module's stdin, runs one turn and returns
// the lines it wrote.
func turn(t *testing.T, m *reactortest.Module, lines ...string) []string {
	t.Helper()
	for _, line := range lines {
		m.Append([]byte(line + "\n"))
	}
	out, err := m.Turn(testContext(t))
	if err != nil {
		t.Fatalf("turn: %v", err)
	}
	if n := m.Unread(); n != 0 {
		t.Errorf("the turn left %d bytes of stdin unread", n)
	}
	return strings.FieldsFunc(string(out), func(r rune) bool { return r == '\n' })
}

func TestModuleServesCallsAsTheyArrive(t *testing.T) {
	m := startModule(t, reactortest.Options{})
	if diff := cmp.Diff([]string{result(1, initAnswer)}, turn(t, m, request(1, "initialize", initializeParams2))); diff != "" {
		t.Errorf("initialize (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{result(2, `{"a":1}`)}, turn(t, m, request(2, "t/echo", `{"a":1}`))); diff != "" {
		t.Errorf("t/echo (-want +got):\n%s", diff)
	}
	if got := turn(t, m); len(got) != 0 {
		t.Errorf("a turn with nothing to read wrote %q", got)
	}
	got := turn(t, m, request(3, "t/echo", `[3]`), request(4, "t/echo", `[4]`), request(5, "t/ring", `{"goroutines":200,"laps":20}`))
	slices.Sort(got)
	want := []string{result(3, `[3]`), result(4, `[4]`), result(5, `{"hops":4000}`)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("three calls in one turn (-want +got):\n%s", diff)
	}
}

// initializeParams2 is initializeParams on one line.
var initializeParams2 = strings.Join(strings.Fields(initializeParams), "")

func TestModuleAnswersAHostCallInALaterTurn(t *testing.T) {
	m := startModule(t, reactortest.Options{})
	turn(t, m, request(1, "initialize", initializeParams2))

	// The call asks the host for a secret: the turn ends with the request
	// written, without waiting for the answer.
	want := []string{request(1, "secrets/get", `{"key":"token"}`)}
	if diff := cmp.Diff(want, turn(t, m, request(2, "t/secret", `{}`))); diff != "" {
		t.Fatalf("the turn of t/secret (-want +got):\n%s", diff)
	}
	// Meanwhile other calls are served.
	if diff := cmp.Diff([]string{result(3, `["x"]`)}, turn(t, m, request(3, "t/echo", `["x"]`))); diff != "" {
		t.Errorf("t/echo while t/secret waits (-want +got):\n%s", diff)
	}
	// The host's answer comes: t/secret is answered in that turn.
	got := turn(t, m, result(1, `"s3cret"`))
	if diff := cmp.Diff([]string{result(2, `{"found":true,"length":6}`)}, got); diff != "" {
		t.Errorf("t/secret once the host answered (-want +got):\n%s", diff)
	}
}

func TestModuleAnswersABatchWithOneArray(t *testing.T) {
	m := startModule(t, reactortest.Options{})
	turn(t, m, request(1, "initialize", initializeParams2))

	batch := "[" + request(2, "t/secret", `{}`) + "," + request(3, "t/echo", `[3]`) + `,{"jsonrpc":"2.0","method":"event/note","params":[7]}]`
	got := turn(t, m, batch)
	want := []string{request(1, "secrets/get", `{"key":"token"}`), `{"jsonrpc":"2.0","method":"log","params":{"level":"info","message":"note [7]"}}`}
	slices.Sort(got)
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("the batch's first turn (-want +got):\n%s", diff)
	}
	got = turn(t, m, result(1, `null`))
	if len(got) != 1 {
		t.Fatalf("the batch's second turn wrote %q, want one array", got)
	}
	var answers []json.RawMessage
	if err := json.Unmarshal([]byte(got[0]), &answers); err != nil {
		t.Fatalf("the batch answer %s: %v", got[0], err)
	}
	var texts []string
	for _, a := range answers {
		texts = append(texts, string(a))
	}
	slices.Sort(texts)
	if diff := cmp.Diff([]string{result(2, `{"found":false,"length":0}`), result(3, `[3]`)}, texts); diff != "" {
		t.Errorf("the batch answer (-want +got):\n%s", diff)
	}
}

func TestModuleReadsLinesWhateverTheirSize(t *testing.T) {
	for _, eagain := range []bool{false, true} {
		t.Run(fmt.Sprintf("EAGAIN=%v", eagain), func(t *testing.T) {
			m := startModule(t, reactortest.Options{EAGAIN: eagain})
			turn(t, m, request(1, "initialize", initializeParams2))
			big := `["` + strings.Repeat("x", 1<<20) + `"]` // many reads of stdin
			if got := turn(t, m, request(2, "t/echo", big)); len(got) != 1 || got[0] != result(2, big) {
				t.Errorf("a 1 MiB line: %d lines back, want its answer", len(got))
			}
			line := request(3, "t/echo", `["split"]`) + "\n"
			m.Append([]byte(line[:20]))
			if got := turn(t, m); len(got) != 0 { // no whole line yet
				t.Errorf("half a line answered %q", got)
			}
			if diff := cmp.Diff([]string{result(3, `["split"]`)}, turn(t, m, line[20:len(line)-1])); diff != "" {
				t.Errorf("a line split across turns (-want +got):\n%s", diff)
			}
		})
	}
}

func TestModuleExits(t *testing.T) {
	t.Run("os.Exit", func(t *testing.T) {
		m := startModule(t, reactortest.Options{})
		turn(t, m, request(1, "initialize", initializeParams2))
		m.Append([]byte(request(2, "t/exit", `{"code":3}`) + "\n"))
		_, err := m.Turn(testContext(t))
		if exit := (*engine.ExitError)(nil); !errors.As(err, &exit) || exit.ExitCode() != 3 {
			t.Errorf("turn of t/exit: %v, want exit code 3", err)
		}
	})
	t.Run("shutdown while a call waits on the host", func(t *testing.T) {
		m := startModule(t, reactortest.Options{})
		turn(t, m, request(1, "initialize", initializeParams2))
		turn(t, m, request(2, "t/secret", `{}`)) // asks secrets/get, never answered
		m.Append([]byte(request(3, "shutdown", `null`) + "\n"))
		out, err := m.Turn(testContext(t))
		got := strings.Split(strings.TrimSpace(string(out)), "\n")
		slices.Sort(got)
		if len(got) != 2 || got[1] != result(3, "null") || !strings.HasPrefix(got[0], `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,`) {
			t.Errorf("the shutdown turn wrote %q, want shutdown's answer and t/secret's error", got)
		}
		if exit := (*engine.ExitError)(nil); !errors.As(err, &exit) || exit.ExitCode() != 0 {
			t.Errorf("turn of shutdown: %v, want exit code 0", err)
		}
	})
	t.Run("shutdown", func(t *testing.T) {
		m := startModule(t, reactortest.Options{})
		turn(t, m, request(1, "initialize", initializeParams2))
		m.Append([]byte(request(2, "shutdown", `null`) + "\n"))
		out, err := m.Turn(testContext(t))
		if diff := cmp.Diff(result(2, "null")+"\n", string(out)); diff != "" {
			t.Errorf("shutdown's answer (-want +got):\n%s", diff)
		}
		if exit := (*engine.ExitError)(nil); !errors.As(err, &exit) || exit.ExitCode() != 0 {
			t.Errorf("turn of shutdown: %v, want exit code 0 once main returned", err)
		}
	})
}

// testHost is a host for the turns plugin: a secret, settings and, when
// timers is set, the timer service of a module.
type testHost struct {
	*reactortest.Host
	timers *timersvc.Service
}

// wirePeer notifies the plugin over its wire.
type wirePeer struct{ wire reactortest.Wire }

func (p wirePeer) Notify(method string, params any) error {
	line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	if err != nil {
		return err
	}
	return p.wire.Send(line)
}

func newTestHost(t *testing.T, wire reactortest.Wire, timers bool) *testHost {
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
	case vocab.MethodSecretsGet:
		return "s3cret", nil
	case vocab.MethodSettingsGet:
		return map[string]any{"greeting": "Bonjour"}, nil
	case vocab.MethodFilesRead:
		return "alpha\nbeta\n", nil
	}
	if h.timers == nil {
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

// call makes one call through the host and returns the answer's line.
func (h *testHost) call(t *testing.T, ctx context.Context, line string) string {
	t.Helper()
	answer, err := h.Roundtrip(ctx, line)
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return answer
}

func TestModuleTimersAreTheHosts(t *testing.T) {
	m := startModule(t, reactortest.Options{})
	wire := &reactortest.ModuleWire{Module: m}
	h := newTestHost(t, wire, true)
	ctx := testContext(t)
	h.call(t, ctx, request(1, "initialize", initializeParams2))

	turns := wire.Turns
	if diff := cmp.Diff(result(2, `{"slept":30}`), h.call(t, ctx, request(2, "t/sleep", `{"ms":30}`))); diff != "" {
		t.Errorf("t/sleep (-want +got):\n%s", diff)
	}
	// One turn writes timer/set; its answer and timer/fired come in later
	// ones (usually two more, one if both came before the next turn).
	if n := wire.Turns - turns; n < 2 {
		t.Errorf("t/sleep took %d turns, want 2 or more", n)
	}
	if diff := cmp.Diff(result(3, `{"woke":[0,10,20,30]}`), h.call(t, ctx, request(3, "t/sleeps", `{"ms":[30,10,20,0]}`))); diff != "" {
		t.Errorf("t/sleeps (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(result(4, `{"called":true}`), h.call(t, ctx, request(4, "t/after", `{}`))); diff != "" {
		t.Errorf("t/after (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(result(5, `{"again":false,"stopped":true}`), h.call(t, ctx, request(5, "t/stop", `{}`))); diff != "" {
		t.Errorf("t/stop (-want +got):\n%s", diff)
	}
	// The stopped timer's clear went out in the same turn as the answer.
	var timerCalls []string
	for _, asked := range h.Asked {
		if strings.HasPrefix(asked, "timer/") {
			timerCalls = append(timerCalls, asked)
		}
	}
	want := []string{
		`timer/set {"ms":30}`,
		`timer/set {"ms":30}`, `timer/set {"ms":10}`, `timer/set {"ms":20}`, `timer/set {"ms":0}`,
		`timer/set {"ms":15}`,
		`timer/set {"ms":3600000}`, `timer/clear {"timer":7}`,
	}
	slices.Sort(timerCalls[1:5]) // t/sleeps sets its four timers at once
	slices.Sort(want[1:5])
	if diff := cmp.Diff(want, timerCalls); diff != "" {
		t.Errorf("timer calls (-want +got):\n%s", diff)
	}
	if n := h.timers.Pending(); n != 0 {
		t.Errorf("%d timers pending on the host, want 0", n)
	}
}

// conversation is what TestBothBuildsAnswerAlike sends, line by line;
// each line gets one answer, except notifications.
var conversation = []string{
	request(1, "initialize", initializeParams2),
	request(2, "t/echo", `{"a":[1,2,3],"b":"é"}`),
	request(3, "t/secret", `{}`),
	request(4, "t/settings", `{}`),
	request(15, "t/file", `{}`),
	`{"jsonrpc":"2.0","method":"event/note","params":{"n":"hi"}}`,
	request(5, "t/sleep", `{"ms":20}`),
	request(6, "t/sleeps", `{"ms":[20,0,10]}`),
	request(7, "t/stop", `{}`),
	request(8, "t/after", `{}`),
	request(9, "t/ring", `{"goroutines":50,"laps":10}`),
	"[" + request(10, "t/echo", `[10]`) + "]",
	request(11, "t/nothing", `{}`),
	request(14, "t/panic", `{}`),
	request(12, "t/echo", `{"a":`),
	`{"jsonrpc":"2.0","id":9007199254740993,"method":"t/echo","params":[]}`,
	request(13, "shutdown", `null`),
}

// talk plays conversation through h and returns the answers.
func talk(t *testing.T, h *testHost) []string {
	ctx := testContext(t)
	var answers []string
	for _, line := range conversation {
		if !strings.Contains(line, `"id"`) {
			if err := h.Send(line); err != nil {
				t.Fatal(err)
			}
			continue
		}
		answers = append(answers, h.call(t, ctx, line))
	}
	more, err := h.Drain(ctx) // what comes after shutdown's answer
	if err != nil {
		t.Fatal(err)
	}
	return append(answers, more...)
}

func TestBothBuildsAnswerAlike(t *testing.T) {
	module := newTestHost(t, &reactortest.ModuleWire{Module: startModule(t, reactortest.Options{})}, true)
	process := newTestHost(t, startProcess(t), false)
	fromModule, fromProcess := talk(t, module), talk(t, process)
	if diff := cmp.Diff(fromProcess, fromModule); diff != "" {
		t.Errorf("answers (-process +module):\n%s", diff)
	}
	for _, want := range []string{result(9, `{"hops":500}`), result(15, `{"bytes":11}`), result(4, `{"greeting":"Bonjour"}`)} {
		if !slices.Contains(fromModule, want) {
			t.Errorf("answers %q lack %s", fromModule, want)
		}
	}
	if diff := cmp.Diff(process.Notes, module.Notes); diff != "" {
		t.Errorf("notifications (-process +module):\n%s", diff)
	}
	// The process keeps its own timers: only the module asks the host.
	notTimer := func(asked string) bool { return strings.HasPrefix(asked, "timer/") }
	if diff := cmp.Diff(process.Asked, slices.DeleteFunc(slices.Clone(module.Asked), notTimer)); diff != "" {
		t.Errorf("calls to the host (-process +module):\n%s", diff)
	}
	if slices.ContainsFunc(process.Asked, notTimer) {
		t.Errorf("the process asked the host for timers: %q", process.Asked)
	}
}

// BenchmarkEchoTurn times one t/echo call to the module build: append the
// line, run the turn, take the answer.
func BenchmarkEchoTurn(b *testing.B) {
	m := startModule(b, reactortest.Options{})
	ctx := context.Background()
	m.Append([]byte(request(1, "initialize", initializeParams2) + "\n"))
	if _, err := m.Turn(ctx); err != nil {
		b.Fatal(err)
	}
	line := []byte(request(2, "t/echo", `{"text":"hello"}`) + "\n")
	b.ResetTimer()
	for b.Loop() {
		m.Append(line)
		out, err := m.Turn(ctx)
		if err != nil || len(out) == 0 {
			b.Fatalf("turn: %q, %v", out, err)
		}
	}
}

// BenchmarkEchoProcess times the same call to the process build of the
// same source, over its pipes.
func BenchmarkEchoProcess(b *testing.B) {
	w := startProcess(b)
	ctx := context.Background()
	line := []byte(request(1, "initialize", initializeParams2))
	if err := w.Send(line); err != nil {
		b.Fatal(err)
	}
	if _, err := w.Receive(ctx); err != nil {
		b.Fatal(err)
	}
	line = []byte(request(2, "t/echo", `{"text":"hello"}`))
	b.ResetTimer()
	for b.Loop() {
		if err := w.Send(line); err != nil {
			b.Fatal(err)
		}
		if _, err := w.Receive(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
