package acceptance

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The answers a program gives the console, the same for a process and a
// module of the same source.
func TestModuleAnswersAsAProcess(t *testing.T) {
	t.Parallel()
	calls := func(c *console) []string {
		var got []string
		add := func(l line) { got = append(got, canonical(l)) }
		add(c.call("c1", "test/echo", map[string]any{"n": "9007199254740993", "s": "é"}))
		add(c.call("c2", "test/served", nil))
		c.send(`{"op":"batch","id":"b1","calls":[{"method":"test/echo","params":[1,2]},{"method":"test/log","params":{"message":"batched"},"notify":true},{"method":"test/served"}]}`)
		add(c.answer("b1.0"))
		add(c.answer("b1.2"))
		// The plugin's own batch to the host, answered as one array.
		add(c.call("c3", "test/hostbatch", map[string]any{"calls": []any{
			map[string]any{"method": "settings/get", "params": map[string]any{}},
			map[string]any{"method": "nope/x", "params": map[string]any{}},
		}}))
		c.journal("log.info batched")
		c.journal("refused", "nope/x")
		return got
	}
	proc := start(t, processPlugin(t, nil, nil), "")
	mod := start(t, modulePlugin(t, "raw", nil, nil), "")
	want, got := calls(proc), calls(mod)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("module answers differ from the process's (-process +module):\n%s", diff)
	}
	if !strings.Contains(want[len(want)-1], `-32601`) || !strings.Contains(want[len(want)-1], `"result":{}`) {
		t.Errorf("host batch answer = %s, want settings {} and -32601", want[len(want)-1])
	}
	for _, c := range []*console{proc, mod} {
		if i := c.index(func(l line) bool { return l.Op == "answer" && l.ID == "b1.1" }); i >= 0 {
			t.Errorf("a notification of a batch got an answer")
		}
	}
}

// canonical is an answer line without what differs between runs.
func canonical(l line) string {
	var v map[string]any
	json.Unmarshal([]byte(l.raw), &v)
	return mustJSON(v)
}

// The kit's reactor answers calls and batches.
func TestKitModuleCallsAndBatches(t *testing.T) {
	t.Parallel()
	c := start(t, modulePlugin(t, "kit", nil, nil), "")
	var echo map[string]any
	c.result("c1", "kit/echo", map[string]any{"a": 1}, &echo)
	if diff := cmp.Diff(map[string]any{"a": 1.0}, echo); diff != "" {
		t.Errorf("kit/echo (-want +got):\n%s", diff)
	}
	c.send(`{"op":"batch","id":"b","calls":[{"method":"kit/echo","params":["x"]},{"method":"kit/seen"},{"method":"kit/none"}]}`)
	if a := c.answer("b.0"); string(a.Res) != `["x"]` {
		t.Errorf("b.0 = %s", a.raw)
	}
	if a := c.answer("b.2"); a.Err == nil || a.Err.Code != -32601 {
		t.Errorf("b.2 = %s, want -32601", a.raw)
	}
	// The instance keeps its state between turns.
	if a := c.answer("b.1"); string(a.Res) != "2" {
		t.Errorf("kit/seen = %s, want 2", a.raw)
	}
	var slept int
	c.result("c2", "kit/sleep", []int{30}, &slept)
}

func TestModuleHandshakeRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ mode, reason string }{
		{"v2", "it speaks version 2 of the protocol; this Escouade speaks version 1"},
		{"none", "its answer to initialize has no protocol version"},
		{"silent", "no answer to initialize within 10 s"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			c := start(t, modulePlugin(t, "raw", nil, map[string]string{"mode.json": `{"handshake":"` + tc.mode + `"}`}), "")
			c.send(`{"op":"call","id":"c1","method":"test/echo","params":[1]}`)
			if tc.mode == "silent" {
				// 257 calls wait in the queue of 256 while initialize is
				// unanswered: the oldest is dropped.
				for i := 2; i <= 257; i++ {
					c.send(fmt.Sprintf(`{"op":"call","id":"c%d","method":"test/echo","params":[%d]}`, i, i))
				}
				if a := c.answer("c1"); a.Default != "dropped" {
					t.Errorf("c1 = %s, want default dropped", a.raw)
				}
				c.journal("dropped", "queue full: dropped test/echo")
			}
			st := c.waitState("stopped")
			if !strings.Contains(st.Reason, tc.reason) || st.Crashes != 0 {
				t.Errorf("state = %s, want stopped with %q, no crash", st.raw, tc.reason)
			}
			c.journal("stop", tc.reason)
			last := "c1"
			if tc.mode == "silent" {
				last = "c257"
			}
			if a := c.answer(last); a.Default != "stopped" {
				t.Errorf("%s = %s, want default stopped", last, a.raw)
			}
			if c.index(func(l line) bool {
				return strings.Contains(l.Line, " crash ") || strings.Contains(l.Line, "instance 2")
			}) >= 0 {
				t.Errorf("a refused handshake was taken for a crash and restarted")
			}
		})
	}
}

func TestModuleDelaysAndLateAnswers(t *testing.T) {
	t.Parallel()
	c := start(t, modulePlugin(t, "raw", nil, nil), "", "--delay", "test/never=300ms", "--delay", "test/late=100ms")
	if a := c.call("c1", "test/never", nil); a.Default != "timeout" || a.Reason != "test/never: no answer within 300 ms" {
		t.Errorf("test/never = %s", a.raw)
	}
	c.journal("timeout test/never: no answer within 300 ms")
	if a := c.call("c2", "test/late", nil); a.Default != "timeout" || a.Reason != "test/late: no answer within 100 ms" {
		t.Errorf("test/late = %s", a.raw)
	}
	c.journal("late test/late: late answer ignored")
	// The default delay (5 s) holds for the rest.
	if a := c.call("c3", "test/echo", []string{"still here"}); string(a.Res) != `["still here"]` {
		t.Errorf("after the late answer: %s", a.raw)
	}
}

// Four exits of the instance within five minutes: three restarts, then
// stopped; a restart forgets them.
func TestModuleCrashesAndRestart(t *testing.T) {
	t.Parallel()
	c := start(t, modulePlugin(t, "raw", nil, nil), "")
	for i := 1; i <= 4; i++ {
		id := fmt.Sprintf("f%d", i)
		if a := c.call(id, "test/fault", []string{"exit"}); a.Default != "crashed" {
			t.Errorf("%s = %s, want default crashed", id, a.raw)
		}
		c.journalN(i, "crash", "exit code 3")
		if i < 4 {
			c.journal("start", fmt.Sprintf("instance %d", i+1))
		}
	}
	st := c.waitState("stopped")
	if st.Reason != "stopped after 4 crashes within 5 minutes" {
		t.Errorf("state after the 4th crash = %s", st.raw)
	}
	if a := c.call("c1", "test/echo", []int{1}); a.Default != "stopped" {
		t.Errorf("a call to a stopped plugin = %s", a.raw)
	}
	c.send(`{"op":"restart"}`)
	if a := c.call("c2", "test/echo", []int{2}); string(a.Res) != "[2]" {
		t.Errorf("after restart: %s", a.raw)
	}
	if st := c.state(); st.State != "ready" || st.Crashes != 0 {
		t.Errorf("state after restart = %s, want ready with 0 crashes", st.raw)
	}
}

// A crash replays the attaches, then the queued calls, in order.
func TestModuleReattachAndQueue(t *testing.T) {
	t.Parallel()
	c := start(t, modulePlugin(t, "raw", nil, nil), "")
	c.send(`{"op":"attach","agent":"a1","params":{"session":"s1","mode":"plan"}}`)
	c.answer("a1")
	c.send(`{"op":"attach","agent":"a2","params":{"session":"s2"}}`)
	c.answer("a2")
	c.send(`{"op":"call","id":"f","method":"test/fault","params":["exit"]}`)
	c.send(`{"op":"call","id":"q1","method":"test/echo","params":[1]}`)
	c.send(`{"op":"call","id":"q2","method":"test/echo","params":[2]}`)
	if a := c.answer("f"); a.Default != "crashed" {
		t.Errorf("f = %s", a.raw)
	}
	// q1 and q2 were written to the old instance (crashed with it) or
	// waited in the queue for the new one (answered after the attaches).
	var echoes []string
	for _, id := range []string{"q1", "q2"} {
		if a := c.answer(id); a.Default == "" {
			echoes = append(echoes, "test/echo")
		} else if a.Default != "crashed" {
			t.Errorf("%s = %s, want an answer or the default crashed", id, a.raw)
		}
	}
	var seen []string
	c.result("s", "test/seen", nil, &seen)
	want := append(append([]string{"initialize", "agent/attach", "agent/attach"}, echoes...), "test/seen")
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("what the new instance got (-want +got):\n%s", diff)
	}
}

func TestModuleShutdown(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"eof", "close"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			c := start(t, modulePlugin(t, "raw", nil, nil), "")
			c.call("c1", "test/echo", []int{1})
			if how == "close" {
				c.send(`{"op":"close"}`)
			}
			if err := c.closeAndWait(); err != nil {
				t.Errorf("the console ended with %v, want exit 0", err)
			}
			c.journal("stop", "the host closed")
			if c.index(func(l line) bool { return strings.Contains(l.Line, " crash ") }) >= 0 {
				t.Errorf("shutdown journaled a crash")
			}
		})
	}
}

// An endless loop, a memory bomb, a panic and a trap end the instance
// with their text and restart it, three times; the fourth stops it.
func TestModuleLimits(t *testing.T) {
	t.Parallel()
	faults := []struct{ fault, text string }{
		{"loop", "a turn ran past 2000 ms: Escouade stopped its instance"},
		{"grow", "its instance ran out of its 64 MB of memory"},
		{"panic", "its instance crashed: panic: boom"},
		{"trap", "its instance crashed: wasm error: out of bounds memory access"},
	}
	for _, module := range []string{"raw", "kit"} {
		for _, f := range faults {
			t.Run(module+"/"+f.fault, func(t *testing.T) {
				t.Parallel()
				c := start(t, modulePlugin(t, module, nil, nil), "")
				method := map[string]string{"raw": "test/arm", "kit": "kit/arm"}[module]
				for i := 1; i <= 4; i++ {
					c.call(fmt.Sprintf("arm%d", i), method, []string{f.fault})
					armed := c.journalN(i, "log.info armed "+f.fault)
					ended := c.journalN(i, "crash", f.text)
					if f.fault == "loop" {
						// raw logs "fired" as its looping turn starts (a
						// command's stdout goes out during the turn); the
						// kit's module only "armed", 10 ms of timer before.
						from, slack := armed, 10*time.Millisecond
						if module == "raw" {
							from, slack = c.journalN(i, "log.info fired fault:loop"), 0
						}
						// The turn limit acted: its sentence says so, and its
						// clock fires only once 2 s have passed (a lower bound
						// on host-side stamps would not hold: a loaded machine
						// journals the "fired" line late). The upper bound
						// allows a loaded machine, whose timer and journal may
						// both be late by a second.
						if d := stamp(t, ended).Sub(stamp(t, from)); d > 3000*time.Millisecond+slack {
							t.Errorf("the loop's turn ended %s after it began (%q → %q), want 2 s, at most 3 s on a loaded machine", d, from, ended)
						}
					}
					if i < 4 {
						c.journal("start", fmt.Sprintf("instance %d", i+1))
					}
				}
				if st := c.waitState("stopped"); st.Reason != "stopped after 4 crashes within 5 minutes" {
					t.Errorf("state = %s", st.raw)
				}
			})
		}
	}
}

func TestModuleForbiddenImport(t *testing.T) {
	t.Parallel()
	c := start(t, modulePlugin(t, "badimport", nil, nil), "")
	a := c.call("c1", "test/echo", []int{1})
	if a.Default == "" {
		t.Errorf("a refused module answered: %s", a.raw)
	}
	st := c.waitState("stopped")
	if !strings.Contains(st.Reason, "evil") || !strings.Contains(st.Reason, "launch_missiles") {
		t.Errorf("state = %s, want the import evil.launch_missiles named", st.raw)
	}
}

func TestModuleTimers(t *testing.T) {
	t.Parallel()
	c := start(t, modulePlugin(t, "raw", nil, nil), "")
	t.Run("order", func(t *testing.T) {
		// The due times are taken as the host handles each timer/set; 200 ms
		// apart, a loaded host handling the three sets late still keeps
		// their order.
		c.call("o", "test/timers", []int{600, 200, 400})
		for _, label := range []string{"0", "1", "2"} {
			c.wait("fired "+label, logged("fired "+label))
		}
		i0, i1, i2 := c.index(logged("fired 0")), c.index(logged("fired 1")), c.index(logged("fired 2"))
		if !(i1 < i2 && i2 < i0) {
			t.Errorf("timers of 600, 200, 400 ms fired at lines %d, %d, %d, want the 200 ms one first, then 400, then 600", i0, i1, i2)
		}
	})
	t.Run("floor", func(t *testing.T) {
		// A 1 ms timer is raised to the 10 ms floor (services/timer's
		// clock tests measure the 10 ms on an injected clock): the two
		// journal stamps here are written by a host that may be loaded, so
		// only their order is asserted, and that the timer fired.
		c.call("f", "test/timers", []int{1})
		arming := c.journalN(2, "log.info arming")
		fired := c.journalN(2, "log.info fired 0")
		if stamp(t, fired).Before(stamp(t, arming)) {
			t.Errorf("a 1 ms timer fired (%s) before it was asked for (%s)", fired, arming)
		}
	})
	t.Run("cap", func(t *testing.T) {
		ms := make([]int, 65)
		for i := range ms {
			ms[i] = 600000
		}
		var results []struct {
			Timer json.RawMessage `json:"timer"`
			Error *struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		c.result("cap", "test/timers", ms, &results)
		for i, r := range results {
			if i < 64 && (r.Error != nil || r.Timer == nil) {
				t.Errorf("timer %d refused", i+1)
			}
			if i == 64 && (r.Error == nil || r.Error.Code != -32003) {
				t.Errorf("the 65th timer = %+v, want -32003", r)
			}
		}
		c.journal("refused", "timer/set")
	})
}

func logged(text string) func(line) bool {
	return func(l line) bool { return l.Op == "journal-line" && strings.HasSuffix(l.Line, "log.info "+text) }
}

// /plugin holds the root JSON files alone, never the manifest, 256 KB
// each and 1 MB in all; what is left out is journaled by name.
func TestModulePluginFolder(t *testing.T) {
	t.Parallel()
	const piece = 240 << 10 // four fit in 1 MB, five do not
	files := map[string]string{
		"a.json":          `{"a":1}`,
		"big.json":        `"` + strings.Repeat("x", 300<<10) + `"`,
		"notes.txt":       "not JSON",
		"sub/nested.json": `{}`,
	}
	for i := 1; i <= 5; i++ {
		files[fmt.Sprintf("r%d.json", i)] = `"` + strings.Repeat("r", piece-2) + `"`
	}
	c := start(t, modulePlugin(t, "raw", nil, files), "")
	var got map[string]int
	c.result("f", "test/files", nil, &got)
	if got["a.json"] != len(files["a.json"]) {
		t.Errorf("a.json = %d bytes in /plugin, want %d", got["a.json"], len(files["a.json"]))
	}
	var rs, total int
	for name, size := range got {
		total += size
		switch {
		case name == "a.json":
		case strings.HasPrefix(name, "r") && size == piece:
			rs++
		default:
			t.Errorf("/plugin holds %s (%d bytes), which it must not", name, size)
		}
	}
	if rs != 4 {
		t.Errorf("/plugin holds %d of the five %d-byte files, want the four that fit in 1 MB: %v", rs, piece, got)
	}
	c.journal("wasm", "big.json")
	for i := 1; i <= 5; i++ {
		name := fmt.Sprintf("r%d.json", i)
		if _, in := got[name]; !in {
			c.journal("wasm", name)
		}
	}
}

func TestModuleSecretsMasked(t *testing.T) {
	t.Parallel()
	const secret = "tok-3f9a-secret"
	c := start(t, modulePlugin(t, "kit", map[string]any{"permissions": map[string]any{"secrets": []string{"token"}}}, nil), "",
		"--secret", "token="+secret)
	var found bool
	c.result("s", "kit/secret", nil, &found)
	if !found {
		t.Errorf("kit/secret found no token")
	}
	c.journal("log.info the token is ••••")
	c.journal("stderr", "stderr says the token is ••••")
	c.journal("secret", `"token"`)
	c.send(`{"op":"journal","n":500}`)
	j := c.wait("journal", func(l line) bool { return l.Op == "journal" })
	if strings.Contains(c.text(), secret) || strings.Contains(j.raw, secret) {
		t.Errorf("the secret's value is in the journal")
	}
}

// A process asking for a module-only service gets -32601.
func TestProcessModuleOnlyMethods(t *testing.T) {
	t.Parallel()
	c := start(t, processPlugin(t, nil, nil), "")
	for i, call := range []struct {
		method string
		params any
	}{
		{"timer/set", map[string]any{"ms": 10}},
		{"net/fetch", map[string]any{"url": "https://example.org/"}},
		{"fs/read", map[string]any{"root": "temp", "path": "x"}},
		{"proc/run", map[string]any{"program": "ls", "args": []string{}}},
	} {
		var got struct {
			Error struct {
				Code int `json:"code"`
			} `json:"error"`
		}
		c.result(fmt.Sprint("p", i), "test/svc", map[string]any{"method": call.method, "params": call.params}, &got)
		if got.Error.Code != -32601 {
			t.Errorf("%s from a process: %+v, want -32601", call.method, got)
		}
		c.journal("refused "+call.method, "no such method")
	}
}
