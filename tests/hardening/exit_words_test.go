//go:build linux

package hardening

import (
	"strings"
	"testing"
)

// How a program ended, as the CLI reports it, is the seam's neutral words
// mapped from the OS by the process transport: a SIGKILL that did not come
// from the host is a crash that names its signal and restarts the program
// under a new pid; the host's own stop (disable) ends the program with no
// crash entry.
func TestASignalFromOutsideIsACrashAndTheHostsStopIsNot(t *testing.T) {
	dir := plugin{fixture: "puppet"}.write(t)
	s := run(t, dir, "--follow")
	s.call("warm", "do", []any{})
	first := s.state()
	pid, ok := first["pid"].(float64)
	if first.str("state") != "ready" || !ok || pid <= 0 {
		t.Fatalf("state after the first call: %v, want ready with the program's pid", first)
	}
	s.call("k", "do", []any{map[string]any{"killAfter": true}}) // it kills itself after its answer
	// The crash's journal line may come before the answer's line (the
	// journal reaches the console on its own queue): a line the call's
	// wait skipped counts.
	s.seenOrNext("the crash entry", func(l line) bool {
		return l.str("op") == "journal-line" && strings.Contains(l.str("line"), " crash crashed: signal killed")
	})
	again := s.state()
	for p, _ := again["pid"].(float64); again.str("state") != "ready" || p == pid; p, _ = again["pid"].(float64) {
		s.next("a state change", isOp("state")) // the restart under way: wait for its next step
		again = s.state()
	}
	if p, _ := again["pid"].(float64); p <= 0 || p == pid || again["crashes"] != float64(1) {
		t.Errorf("state after the crash: %v, want a new pid (not %v) and 1 crash", again, pid)
	}
	s.send(`{"op":"disable"}`)
	s.next("disabled", func(l line) bool { return l.str("op") == "state" && l.str("state") == "disabled" })
	s.next("the stop entry", func(l line) bool {
		return l.str("op") == "journal-line" && strings.Contains(l.str("line"), " stop stopped: disabled")
	})
	var crashes int
	for _, l := range s.journalOp(100) {
		if strings.Contains(l, " crash crashed:") {
			crashes++
		}
	}
	if crashes != 1 {
		t.Errorf("%d crash entries, want 1 (the SIGKILL of its own; the host's stop is none); journal:\n%s", crashes, strings.Join(s.journalOp(100), "\n"))
	}
	s.close()
}
