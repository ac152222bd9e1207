//go:build linux

package hardening

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// recursionModule is a command whose _start calls a function that calls
// itself without end. Each frame keeps wide values alive across its call
// (each one the argument plus a constant, all summed after the call
// returns), so the compiler has to keep them in the frame: 0 gives narrow
// frames, some hundreds wide ones.
func recursionModule(wide int) []byte {
	f := []byte{0} // no locals
	for k := range wide {
		f = append(f, 0x20, 0, 0x42) // local.get 0, i64.const
		f = append(f, sleb(k+1)...)
		f = append(f, 0x7c) // i64.add
	}
	f = append(f, 0x20, 0, 0x42, 1, 0x7c, 0x10, 1) // local.get 0 + 1, call 1
	for range wide {
		f = append(f, 0x7c) // i64.add: every kept value is used
	}
	f = append(f, 0x0b)
	start := []byte{0, 0x42, 0, 0x10, 1, 0x1a, 0x0b} // call 1 with 0, drop, end
	code := []byte{2}
	code = append(append(code, uleb(len(start))...), start...)
	code = append(append(code, uleb(len(f))...), f...)
	module := []byte{0, 'a', 's', 'm', 1, 0, 0, 0,
		1, 9, 2, 0x60, 0, 0, 0x60, 1, 0x7e, 1, 0x7e, // types () -> () and (i64) -> i64
		3, 3, 2, 0, 1, // two functions
		5, 3, 1, 0, 1, // a memory of one page
		7, 10, 1, 6, '_', 's', 't', 'a', 'r', 't', 0, 0, // export _start
		10}
	module = append(append(module, uleb(len(code))...), code...)
	return module
}

// sleb is n (not negative) in signed LEB128, as i64.const writes it.
func sleb(n int) []byte {
	var b []byte
	for {
		c := byte(n & 0x7f)
		n >>= 7
		if n == 0 && c&0x40 == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// A module recursing without end, by narrow frames and by wide ones, ends
// its instance by its stack's budget, with the runtime's own sentence, in
// well under a second, and is restarted as after any crash; the host's
// peak memory stays far below what the runtime's own ceiling allowed.
func TestRecursionThroughRun(t *testing.T) {
	for _, c := range []struct {
		name string
		wide int
	}{{"narrow", 0}, {"wide", 64}, {"wider", 400}} {
		t.Run(c.name, func(t *testing.T) {
			dir := plugin{manifest: map[string]any{"name": "deep", "run": map[string]any{"wasm": "main.go"}}, id: "dev.escouade.hardening.recursion"}.write(t)
			writeFile(t, filepath.Join(dir, "plugin.wasm"), recursionModule(c.wide))
			s := run(t, dir, "--follow")
			s.send(`{"op":"call","id":"c","method":"any/thing"}`)
			crash := s.next("the crash line", func(l line) bool {
				return l.str("op") == "journal-line" && strings.Contains(l.str("line"), " crash ")
			})
			if !strings.Contains(crash.str("line"), stackSentence) {
				t.Errorf("crash line %q, want %q", crash.str("line"), stackSentence)
			}
			s.next("the restart after the crash", func(l line) bool {
				return l.str("op") == "journal-line" && strings.Contains(l.str("line"), " start started, instance 2")
			})
			s.close()
			rss := commandPeak(t, s.cmd)
			t.Logf("%s frames: peak RSS %d MB", c.name, rss>>20)
			if rss > rssCeiling {
				t.Errorf("run's peak memory was %d MB, want under %d MB", rss>>20, rssCeiling>>20)
			}
		})
	}
}

// stackSentence is how the runtime's stack overflow reaches the journal,
// turnSentence the turn limit's.
const (
	stackSentence = "its instance crashed: stack overflow"
	turnSentence  = "a turn ran past 2000 ms"
)

// rssCeiling bounds the peak memory of a command whose one module
// recurses without end. The budget of an instance's native stack (16 MB
// of frames, docs/protocol.md#limits) took it to 25-39 MB on a 2-core
// machine (23 MB without a recursion), where the runtime's own ceiling
// took it to 303-452 MB
// (docs/RATIONALE.md#how-is-a-modules-native-stack-bounded); 150 MB
// leaves room for a loaded machine's collector running
// late and still fails a stack grown past a few times its budget.
const rssCeiling = 150 << 20

// A bundle recursing without end meets the JS engine's own limit (its C
// stack of 1 MB, in the instance's linear memory) long before the native
// stack grows: the instance ends by the engine's sentence and the host
// stays small.
func TestBundleRecursionThroughRun(t *testing.T) {
	dir := plugin{
		manifest: map[string]any{"name": "deep", "run": map[string]any{"js": "dist/plugin.mjs"}},
		id:       "dev.escouade.hardening.recursion-js",
		files:    map[string]string{"dist/plugin.mjs": "function f(n) { return f(n + 1) + 1 }\nf(0)\n"},
	}.write(t)
	s := run(t, dir, "--follow")
	s.send(`{"op":"call","id":"c","method":"any/thing"}`)
	crash := s.next("the crash line", func(l line) bool {
		return l.str("op") == "journal-line" && strings.Contains(l.str("line"), " crash ")
	})
	const want = "its instance crashed: InternalError: stack overflow"
	if !strings.Contains(crash.str("line"), want) {
		t.Errorf("crash line %q, want %q", crash.str("line"), want)
	}
	s.close()
	rss := commandPeak(t, s.cmd)
	t.Logf("bundle: peak RSS %d MB", rss>>20)
	// The engine's 64 MB of memory and its compiled code are the most of
	// it; 300 MB allows a loaded machine and fails a native stack's growth.
	if rss > 300<<20 {
		t.Errorf("run's peak memory was %d MB, want under 300 MB", rss>>20)
	}
}

// A Go command recursing without end grows its goroutine's stack in its
// linear memory, and each Go call is a WebAssembly call too: the native
// stack grows with it. Its stack's budget ends it first (64 MB of peak
// RSS, where the turn limit ended it at 185 MB before the budget); its
// memory's or its turn's limit are taken too, the host's memory being the
// point.
func TestGoRecursionThroughRun(t *testing.T) {
	src := t.TempDir()
	writeFile(t, filepath.Join(src, "go.mod"), []byte("module deep\n\ngo 1.22\n"))
	writeFile(t, filepath.Join(src, "main.go"), []byte("package main\n\nvar sink int\n\nfunc f(n int) int { return f(n+1) + 1 }\n\nfunc main() { sink = f(0) }\n"))
	dir := plugin{manifest: map[string]any{"name": "deep", "run": map[string]any{"wasm": "main.go"}}, id: "dev.escouade.hardening.recursion-go"}.write(t)
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "plugin.wasm"), ".")
	build.Dir = src
	build.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	s := run(t, dir, "--follow")
	s.send(`{"op":"call","id":"c","method":"any/thing"}`)
	crash := s.next("the crash line", func(l line) bool {
		return l.str("op") == "journal-line" && strings.Contains(l.str("line"), " crash ")
	})
	ended := false
	for _, want := range []string{stackSentence, turnSentence, "its instance ran out of its 64 MB of memory"} {
		ended = ended || strings.Contains(crash.str("line"), want)
	}
	if !ended {
		t.Errorf("crash line %q, want the stack's, the turn's or the memory's sentence", crash.str("line"))
	}
	s.close()
	rss := commandPeak(t, s.cmd)
	t.Logf("Go: %s; peak RSS %d MB", crash.str("line"), rss>>20)
	if rss > rssCeiling {
		t.Errorf("run's peak memory was %d MB, want under %d MB", rss>>20, rssCeiling>>20)
	}
}

// servePlugins is how many recursing plugins run at once in one host.
const servePlugins = 4

// serveCeiling bounds the peak memory of a serve whose plugins all
// recurse without end, each restarted until it is stopped: what serve
// takes idle, under 100 MB, and each instance's stack within 64 MB
// (docs/protocol.md#limits: 16 MB of counted frames, which the runtime
// holds in buffers of up to four times that as it grows them).
const serveCeiling = (100 + servePlugins*64) << 20

// Several modules recursing at once in one host: each instance is ended
// by its own budget, with the same sentence, until the crash limit stops
// its plugin, and the host's memory stays within the sum of the bounds,
// where the runtime's own ceiling took four of them to 0.8-1.0 GB. Each
// instance spends its budget in a few milliseconds, so how much the four
// overlap is the scheduler's; the ceiling holds if they all do.
func TestRecursionsAtOnceUnderServe(t *testing.T) {
	home := t.TempDir()
	var ids []string
	for n := range servePlugins {
		id := fmt.Sprintf("dev.escouade.hardening.recursion-%d", n)
		dir := plugin{manifest: map[string]any{"name": "deep", "run": map[string]any{"wasm": "main.go"}}, id: id}.write(t)
		writeFile(t, filepath.Join(dir, "plugin.wasm"), recursionModule(64*n))
		if out, errText, code := cli(t, "install", dir, "--home", home); code != 0 {
			t.Fatalf("install: exit %d\n%s%s", code, out, errText)
		}
		ids = append(ids, id)
	}
	v := serveHome(t, home)
	for _, id := range ids {
		if status, body := v.do(t, http.MethodPost, "/plugins/"+id+"/restart", url.Values{}); status != http.StatusOK {
			t.Fatalf("Restart %s: %d %s", id, status, body)
		}
	}
	for _, id := range ids {
		v.waitPage(t, "/plugins/"+id, "Stopped")
		if journal := journalFiles(t, home, id); !strings.Contains(journal, stackSentence) {
			t.Errorf("%s's journal lacks %q:\n%s", id, stackSentence, tail(journal, 2000))
		}
	}
	_ = v.cmd.Process.Signal(os.Interrupt)
	_ = v.cmd.Wait()
	rss := commandPeak(t, v.cmd)
	t.Logf("%d plugins recursing at once: serve's peak RSS %d MB", servePlugins, rss>>20)
	if rss > serveCeiling {
		t.Errorf("serve's peak memory was %d MB, want under %d MB", rss>>20, serveCeiling>>20)
	}
}

// holdsDeep is a command whose _start recurses depth calls deep, each
// frame keeping wide values across its call as recursionModule's, then,
// at the bottom, writes "deep" to stderr and waits on stdin, holding its
// stack until it is stopped.
func holdsDeep(wide, depth int) []byte {
	f := []byte{0, 0x20, 0, 0x50, 0x04, 0x7e}                          // local.get 0, i64.eqz, if (result i64)
	f = append(f, 0x41, 2, 0x41, 0, 0x41, 1, 0x41, 8, 0x10, 0, 0x1a)   // fd_write(2, iovec at 0, 1, &n at 8), drop
	f = append(f, 0x41, 0, 0x41, 32, 0x41, 1, 0x41, 40, 0x10, 1, 0x1a) // fd_read(0, iovec at 32, 1, &n at 40), drop
	f = append(f, 0x42, 0, 0x05)                                       // i64.const 0, else
	for k := range wide {
		f = append(f, 0x20, 0, 0x42)
		f = append(f, sleb(k+1)...)
		f = append(f, 0x7c)
	}
	f = append(f, 0x20, 0, 0x42, 1, 0x7d, 0x10, 3) // local.get 0 - 1, call f
	for range wide {
		f = append(f, 0x7c)
	}
	f = append(f, 0x0b, 0x0b)
	start := append([]byte{0, 0x42}, sleb(depth)...)
	start = append(start, 0x10, 3, 0x1a, 0x0b) // call f, drop, end
	code := []byte{2}
	code = append(append(code, uleb(len(start))...), start...)
	code = append(append(code, uleb(len(f))...), f...)
	wasi := func(name string) []byte {
		b := append([]byte{22}, "wasi_snapshot_preview1"...)
		return append(append(append(b, byte(len(name))), name...), 0, 2) // a function of type 2
	}
	imports := append([]byte{2}, append(wasi("fd_write"), wasi("fd_read")...)...)
	data := []byte{1, 0, 0x41, 0, 0x0b, 21, 16, 0, 0, 0, 5, 0, 0, 0} // at 0: an iovec of "deep\n" at 16
	data = append(append(data, make([]byte, 8)...), "deep\n"...)
	data[5] = byte(len(data) - 6)
	module := []byte{0, 'a', 's', 'm', 1, 0, 0, 0,
		1, 17, 3, 0x60, 0, 0, 0x60, 1, 0x7e, 1, 0x7e, 0x60, 4, 0x7f, 0x7f, 0x7f, 0x7f, 1, 0x7f}
	module = append(append(append(module, 2), uleb(len(imports))...), imports...)
	module = append(module, 3, 3, 2, 0, 1, // _start and f
		5, 3, 1, 0, 1, // a memory of one page
		7, 19, 2, 6, '_', 's', 't', 'a', 'r', 't', 0, 2, 6, 'm', 'e', 'm', 'o', 'r', 'y', 2, 0)
	module = append(append(append(module, 10), uleb(len(code))...), code...)
	// the iovec for fd_read at 32 (64, 16) is set by a second segment
	read := []byte{0, 0x41, 32, 0x0b, 8, 64, 0, 0, 0, 16, 0, 0, 0}
	segments := append([]byte{2}, data[1:]...)
	segments = append(segments, read...)
	return append(append(append(module, 11), uleb(len(segments))...), segments...)
}

// deepDepth is how deep holdsDeep recurses with 400 values kept: near the
// stack's budget by the host's count of the frames (1,300 spend it).
const deepDepth = 1100

// Four modules each holding a stack near its budget at once, in one
// host: serve's peak memory stays within the sum of their bounds (50 MB
// measured on a 2-core machine: a frame takes about half its count).
func TestDeepStacksAtOnceUnderServe(t *testing.T) {
	home := t.TempDir()
	var ids []string
	for n := range servePlugins {
		id := fmt.Sprintf("dev.escouade.hardening.deep-%d", n)
		dir := plugin{manifest: map[string]any{"name": "deep", "run": map[string]any{"wasm": "main.go"}}, id: id}.write(t)
		writeFile(t, filepath.Join(dir, "plugin.wasm"), holdsDeep(400, deepDepth))
		if out, errText, code := cli(t, "install", dir, "--home", home); code != 0 {
			t.Fatalf("install: exit %d\n%s%s", code, out, errText)
		}
		ids = append(ids, id)
	}
	v := serveHome(t, home)
	for _, id := range ids {
		if status, body := v.do(t, http.MethodPost, "/plugins/"+id+"/restart", url.Values{}); status != http.StatusOK {
			t.Fatalf("Restart %s: %d %s", id, status, body)
		}
	}
	for _, id := range ids {
		v.waitJournal(t, id, "stderr deep")
	}
	_ = v.cmd.Process.Signal(os.Interrupt)
	_ = v.cmd.Wait()
	rss := commandPeak(t, v.cmd)
	t.Logf("%d plugins holding deep stacks at once: serve's peak RSS %d MB", servePlugins, rss>>20)
	if rss > serveCeiling {
		t.Errorf("serve's peak memory was %d MB, want under %d MB", rss>>20, serveCeiling>>20)
	}
}

// waitJournal follows a plugin's journal in the view until a line holds
// text; a line saying the instance crashed first fails the test.
func (v *view) waitJournal(t *testing.T, id, text string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLong(t)) // a bound for a hang, not a measure
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, v.base+"/plugins/"+id+"/journal/events", nil)
	req.Header.Set("X-Escouade-Secret", v.secret)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	events := bufio.NewScanner(res.Body)
	for events.Scan() {
		switch l := events.Text(); {
		case strings.Contains(l, text):
			return
		case strings.Contains(l, " crash "):
			t.Fatalf("%s crashed before its journal said %q: %s", id, text, l)
		}
	}
	t.Fatalf("%s's journal stream ended before a line held %q", id, text)
}
