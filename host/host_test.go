package host

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/keychain"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/google/go-cmp/cmp"
)

func TestCallAnsweredAndJournaled(t *testing.T) {
	h, p := startHost(t, "ok", Options{})
	got := mustResult(t, call(t, p, "test/echo", json.RawMessage(`{"a":[1,2]}`)))
	if string(got) != `{"a":[1,2]}` {
		t.Errorf("result = %s", got)
	}
	st := waitState(t, p, StateReady)
	if st.PID == 0 {
		t.Error("a ready process plugin shows no pid")
	}
	journalHas(t, p, "start", fmt.Sprintf("started, pid %d", st.PID))
	journalHas(t, p, "ready", `"protocolVersion":1`)
	j, ok := h.Journal("dev.test.fake")
	if lines, err := j.Tail(500); !ok || err != nil || len(lines) < 2 {
		t.Errorf("Host.Journal tail = %v %v %v", ok, err, lines)
	}
}

func TestProcessGetsItsFolderAndVariables(t *testing.T) {
	_, p := startHost(t, "ok", Options{AppVersion: "2.9.0", Lang: "fr"})
	var env map[string]string
	json.Unmarshal(mustResult(t, call(t, p, "test/env", nil)), &env)
	want := map[string]string{
		"ESCOUADE_PLUGIN_ID": "dev.test.fake", "ESCOUADE_PLUGIN_API": "1",
		"ESCOUADE_VERSION": "2.9.0", "ESCOUADE_LANG": "fr", "cwd": p.Manifest().Dir,
	}
	if diff := cmp.Diff(want, env); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

func TestNeverStartsWithoutActivation(t *testing.T) {
	_, p := startHost(t, "ok", Options{}, func(m *manifest.Manifest) { m.Activation = nil })
	o := call(t, p, "test/echo", []int{1})
	if o.Default != NotStarted || o.Reason != "not started: it has no activation" {
		t.Errorf("outcome = %+v", o)
	}
	journalHas(t, p, "stop", "not started: it has no activation")
	if st := p.Status(); st.State != StateIdle || st.PID != 0 {
		t.Errorf("status = %+v, want idle and never started", st)
	}
}

func TestDeclarativePluginNeverRuns(t *testing.T) {
	_, p := startHost(t, "ok", Options{}, func(m *manifest.Manifest) { m.Run = nil })
	if o := call(t, p, "test/echo", []int{1}); o.Default != NotStarted {
		t.Errorf("outcome = %+v", o)
	}
}

func TestHandshakeRefusals(t *testing.T) {
	tests := []struct {
		mode, reason string
		delays       map[string]time.Duration
	}{
		{"v2", "it speaks version 2 of the protocol; this Escouade speaks version 1", nil},
		{"noversion", "its answer to initialize has no protocol version", nil},
		{"stringversion", `its answer to initialize has no protocol version (protocolVersion is "1", not a number)`, nil},
		{"silent", "no answer to initialize within 150 ms", map[string]time.Duration{"initialize": 150 * time.Millisecond}},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			_, p := startHost(t, tt.mode, Options{Delays: tt.delays})
			o := call(t, p, "test/echo", []int{1})
			if o.Default != Stopped || o.Reason != tt.reason {
				t.Errorf("outcome = %+v, want stopped: %s", o, tt.reason)
			}
			st := waitState(t, p, StateStopped)
			if st.Reason != tt.reason || st.Crashes != 0 {
				t.Errorf("status = %+v: want the reason and no crash", st)
			}
			journalHas(t, p, "stop", tt.reason)
		})
	}
}

func TestDelayGivesTheDefaultAndLateAnswersAreIgnored(t *testing.T) {
	_, p := startHost(t, "ok", Options{Delays: map[string]time.Duration{"test/slow": 100 * time.Millisecond}})
	o := call(t, p, "test/slow", map[string]int{"ms": 400})
	want := Outcome{Default: TimedOut, Reason: "test/slow: no answer within 100 ms"}
	if diff := cmp.Diff(want, o); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	journalHas(t, p, "timeout", "test/slow: no answer within 100 ms")
	journalHas(t, p, "late", "test/slow: late answer ignored")
	mustResult(t, call(t, p, "test/echo", []int{1})) // still serving
}

func TestCrashRestartsAndJournalsTheLastStderrLines(t *testing.T) {
	_, p := startHost(t, "ok", Options{})
	mustResult(t, call(t, p, "test/echo", []int{1}))
	o := call(t, p, "test/crash", nil)
	if o.Default != Crashed {
		t.Fatalf("outcome = %+v, want crashed", o)
	}
	journalHas(t, p, "crash", "crashed: exit code 3; last 20 lines of stderr:")
	journalHas(t, p, "crash", "| dying line 25")
	journalHas(t, p, "crash", "| dying line 6")
	lines, _ := p.Journal().Tail(500)
	for _, l := range lines {
		if strings.Contains(l, "crash | dying line 5") {
			t.Errorf("crash entry holds more than the last 20 lines: %q", l)
		}
	}
	mustResult(t, call(t, p, "test/echo", []int{2})) // restarted
	if st := p.Status(); st.Crashes != 1 {
		t.Errorf("crashes = %d, want 1", st.Crashes)
	}
}

func TestFourthCrashWithinTheWindowStops(t *testing.T) {
	_, p := startHost(t, "crashloop", Options{})
	o := call(t, p, "test/echo", []int{1})
	want := "stopped after 4 crashes within 5 minutes"
	if o.Default != Stopped || o.Reason != want {
		t.Errorf("outcome = %+v", o)
	}
	st := waitState(t, p, StateStopped)
	if st.Reason != want || st.Crashes != 4 {
		t.Errorf("status = %+v", st)
	}
	journalHas(t, p, "stop", want)
	journalHas(t, p, "crash", "| boom: cannot start")
	// Restart forgets the history: four more crashes before it stops again.
	if err := p.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := p.Status(); st.Crashes != 0 {
		t.Errorf("after Restart crashes = %d, want 0", st.Crashes)
	}
	waitState(t, p, StateStopped)
}

func TestQueueKeepsOrderUntilInitialize(t *testing.T) {
	_, p := startHost(t, "slowinit", Options{})
	p.Notify("test/first", []int{1})
	p.Fact("ticket.column", map[string]string{"ticket": "T-1"})
	p.Fact("unrelated", nil)
	p.Notify("test/second", []int{2})
	var got []string
	json.Unmarshal(mustResult(t, call(t, p, "test/received", nil)), &got)
	want := []string{
		"initialize " + string(mustJSON(p.h.initializeParams(p.Manifest()))),
		"test/first [1]", `event/ticket.column {"ticket":"T-1"}`, "test/second [2]", "test/received ",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func TestFullQueueDropsTheOldest(t *testing.T) {
	_, p := startHost(t, "slowinit", Options{QueueSize: 2})
	first := make(chan Outcome, 1)
	go func() { first <- call(t, p, "test/one", nil) }()
	eventually(t, "the first call queued", func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return len(p.queue.items) == 1
	})
	p.Notify("test/two", nil)
	p.Notify("test/three", nil)
	if o := <-first; o.Default != Dropped || o.Reason != "queue full: dropped test/one" {
		t.Errorf("dropped call outcome = %+v", o)
	}
	journalHas(t, p, "dropped", "queue full: dropped test/one")
}

func TestAttachesAreReplayedFirstAfterARestart(t *testing.T) {
	_, p := startHost(t, "ok", Options{})
	ctx := context.Background()
	p.Attach(ctx, "a1", json.RawMessage(`{"mode":"plan"}`))
	p.Attach(ctx, "a2", nil)
	p.Attach(ctx, "a1", json.RawMessage(`{"mode":"edit"}`))
	call(t, p, "test/crash", nil)
	var got []string
	json.Unmarshal(mustResult(t, call(t, p, "test/received", nil)), &got)
	want := []string{
		`agent/attach {"agent":"a1","mode":"edit"}`,
		`agent/attach {"agent":"a2"}`,
		"test/received ",
	}
	if diff := cmp.Diff(want, got[1:]); diff != "" {
		t.Errorf("after initialize (-want +got)\n%s", diff)
	}
}

func TestGarbageOnStdoutIsJournaledAndTheProgramKeepsRunning(t *testing.T) {
	_, p := startHost(t, "ok", Options{})
	if o := call(t, p, "test/garbage", nil); string(o.Result) != `"after garbage"` {
		t.Errorf("outcome = %+v", o)
	}
	journalHas(t, p, "refused", "stdout: not a JSON-RPC message: this is not json")
}

func TestServicesAndMasking(t *testing.T) {
	kc := keychain.NewMemory()
	kc.Set(keychain.Service, keychain.PluginName("dev.test.fake", "token"), "s3cr\"et")
	kc.Set(keychain.Service, keychain.PluginName("dev.other", "token"), "not-yours")
	_, p := startHost(t, "ok", Options{Keychain: kc})
	ask := func(method, params string) string {
		res := mustResult(t, call(t, p, "test/ask", json.RawMessage(fmt.Sprintf(`{"method":%q,"params":%s}`, method, params))))
		return string(res)
	}
	if got := ask("secrets/get", `{"key":"token"}`); got != `{"result":"s3cr\"et"}` {
		t.Errorf("secrets/get = %s", got)
	}
	if got := ask("secrets/get", `{"key":"plugin:dev.other:token"}`); !strings.Contains(got, `"code":-32001`) {
		t.Errorf("a key of another plugin = %s", got)
	}
	if got := ask("secrets/get", `{"nokey":1}`); !strings.Contains(got, `"code":-32602`) {
		t.Errorf("bad params = %s", got)
	}
	for _, m := range []string{"net/fetch", "nope/nothing"} {
		if got := ask(m, `{}`); !strings.Contains(got, `"code":-32601`) {
			t.Errorf("%s = %s", m, got)
		}
	}
	journalHas(t, p, "refused", "net/fetch: no such method")
	journalHas(t, p, "secret", "token")
	mustResult(t, call(t, p, "test/stderr", map[string]string{"line": `leaking s3cr"et and "s3cr\"et"`}))
	journalHas(t, p, "stderr", "leaking •••• and \"••••\"")
	journalLacks(t, p, "s3cr")
}

func TestMemoryPastTheLimitStopsWithoutRestart(t *testing.T) {
	_, p := startHost(t, "ok", Options{MemoryLimit: 50 * MB, MemoryPeriod: 20 * time.Millisecond})
	call(t, p, "test/alloc", nil)
	st := waitState(t, p, StateStopped)
	if !strings.HasPrefix(st.Reason, "stopped: ") || !strings.HasSuffix(st.Reason, " MB of memory, past the limit of 50 MB") {
		t.Errorf("reason = %q", st.Reason)
	}
	journalHas(t, p, "memory", "past the limit of 50 MB")
	if o := call(t, p, "test/echo", []int{1}); o.Default != Stopped {
		t.Errorf("after the stop: %+v", o)
	}
}

// addPlugin adds a second fake plugin in another mode to h.
func addPlugin(t *testing.T, h *Host, mode string) (*manifest.Manifest, *Plugin) {
	t.Helper()
	m := fakeManifest(t)
	m.ID = "dev.test." + mode
	m.Run.Command = []string{"env", "FAKE_PLUGIN=" + mode, m.Run.Command[0], "-test.run=^$"}
	p, err := h.Add(m, folderConfig(m))
	if err != nil {
		t.Fatal(err)
	}
	return m, p
}

func TestUserChanges(t *testing.T) {
	kc := keychain.NewMemory()
	kc.Set(keychain.Service, keychain.PluginName("dev.test.fake", "token"), "tok")
	_, p := startHost(t, "ok", Options{Keychain: kc})
	ctx := context.Background()
	askToken := func() string {
		return string(mustResult(t, call(t, p, "test/ask", json.RawMessage(`{"method":"secrets/get","params":{"key":"token"}}`))))
	}
	if got := askToken(); got != `{"result":"tok"}` {
		t.Fatalf("granted: %s", got)
	}
	before := p.Status().PID
	if err := p.SetGranted(ctx, manifest.Permissions{}); err != nil {
		t.Fatal(err)
	}
	if got := askToken(); !strings.Contains(got, "-32001") {
		t.Errorf("revoked: %s", got)
	}
	if after := p.Status().PID; after == before {
		t.Errorf("the program was not restarted (pid %d)", after)
	}
	p.Disable(ctx)
	if o := call(t, p, "test/echo", []int{1}); o.Default != Stopped || o.Reason != "disabled" {
		t.Errorf("disabled: %+v", o)
	}
	if err := p.Restart(ctx); err != ErrDisabled {
		t.Errorf("Restart of a disabled plugin = %v", err)
	}
	p.Enable()
	mustResult(t, call(t, p, "test/echo", []int{1}))
	m2 := *p.Manifest()
	m2.Version = "1.1.0"
	if err := p.Update(ctx, &m2); err != nil {
		t.Fatal(err)
	}
	journalHas(t, p, "stop", "stopped: updated to 1.1.0")
	if got := p.Manifest().Version; got != "1.1.0" {
		t.Errorf("version after update = %s", got)
	}
}

func TestBatchFromTheApp(t *testing.T) {
	_, p := startHost(t, "ok", Options{})
	outs := p.Batch(context.Background(), []jsonrpc.BatchCall{
		{Method: "test/echo", Params: []int{1}},
		{Method: "test/note", Notify: true},
		{Method: "test/unknown"},
	})
	if len(outs) != 3 || string(outs[0].Result) != "[1]" || outs[1].Result != nil || outs[1].IsDefault() || outs[2].Error == nil || outs[2].Error.Code != -32601 {
		t.Errorf("outcomes = %+v", outs)
	}
}

func TestAnAttachMadeWhileStartingIsSentOnce(t *testing.T) {
	_, p := startHost(t, "slowinit", Options{})
	ctx := context.Background()
	p.Attach(ctx, "a1", json.RawMessage(`{"mode":"plan"}`))
	var got []string
	json.Unmarshal(mustResult(t, call(t, p, "test/received", nil)), &got)
	want := []string{`agent/attach {"agent":"a1","mode":"plan"}`, "test/received "}
	if diff := cmp.Diff(want, got[1:]); diff != "" {
		t.Errorf("after initialize (-want +got)\n%s", diff)
	}
}

func TestALogWithABadLevelIsKept(t *testing.T) {
	_, p := startHost(t, "ok", Options{})
	call(t, p, "test/ask", json.RawMessage(`{"method":"test/nothing","params":{}}`)) // ready
	mustResult(t, call(t, p, "test/notify-log", nil))
	journalHas(t, p, "log.info", "a message at a made-up level")
}

func TestAFactStartsThePluginsThatListenAndDeliversIt(t *testing.T) {
	h, p := startHost(t, "ok", Options{})
	h.Fact("unrelated", nil)
	if st := p.Status(); st.State != StateIdle {
		t.Fatalf("a fact it does not listen to started it: %+v", st)
	}
	h.Fact("ticket.column", map[string]string{"ticket": "T-2"})
	var got []string
	json.Unmarshal(mustResult(t, call(t, p, "test/received", nil)), &got)
	if len(got) < 2 || got[1] != `event/ticket.column {"ticket":"T-2"}` {
		t.Errorf("received %q", got)
	}
}
