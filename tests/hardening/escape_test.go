//go:build linux

package hardening

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// proc names one process by pid and start time, so a reused pid is not
// taken for it.
type proc struct {
	pid   int
	start string
}

// procStat is the state and start time of pid from /proc, or ok false when
// it is gone.
func procStat(pid int) (state, start string, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", "", false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	return f[0], f[19], true
}

func (p proc) alive() bool {
	state, start, ok := procStat(p.pid)
	return ok && start == p.start && state != "Z" && state != "X"
}

// strayPids reads the pids the strays fixture wrote in dir, from the
// line first on, and kills them at the end of the test whatever happens.
func strayPids(t *testing.T, dir string, first int) []proc {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "strays.pids"))
	if err != nil {
		t.Fatal(err)
	}
	var out []proc
	for _, f := range strings.Fields(string(b))[first:] {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		_, start, ok := procStat(pid)
		if !ok {
			t.Fatalf("stray %d is gone before the test stopped anything", pid)
		}
		p := proc{pid, start}
		out = append(out, p)
		t.Cleanup(func() {
			if p.alive() {
				syscall.Kill(p.pid, syscall.SIGKILL)
			}
		})
	}
	return out
}

// expectGone waits, generously, for each stray to end (by its pidfd): a
// SIGKILL is not instant, so a stray still in /proc for a moment is not
// yet a failure.
func expectGone(t *testing.T, after string, strays []proc) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for _, p := range strays {
		if !p.waitGone(time.Until(deadline)) {
			cmd, _ := os.ReadFile("/proc/" + strconv.Itoa(p.pid) + "/cmdline")
			t.Errorf("after %s: process %d (%q) the plugin started is still running", after, p.pid, cmd)
		}
	}
}

func straysPlugin(t *testing.T, mib int) string {
	return plugin{fixture: "strays", files: map[string]string{"strays.json": `{"mib":` + strconv.Itoa(mib) + `}`}}.write(t)
}

// heavyStraysPlugin's strays take their MiB only once the test said so
// with letStraysTakeMemory, after it read their pids: a memory stop that
// came first would end them before the test knew them.
func heavyStraysPlugin(t *testing.T, mib int) string {
	return plugin{fixture: "strays", files: map[string]string{"strays.json": `{"mib":` + strconv.Itoa(mib) + `,"after":"strays.take"}`}}.write(t)
}

func letStraysTakeMemory(t *testing.T, dir string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "strays.take"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Close stops the program and everything it started, also what left its
// process group: a setsid child, a setpgid child, a double-forked daemon.
func TestNoStrayAfterClose(t *testing.T) {
	dir := straysPlugin(t, 1)
	s := run(t, dir)
	s.call("c1", "test/ping", nil)
	strays := strayPids(t, dir, 0)
	s.close()
	expectGone(t, "close", strays)
}

// The end of stdin closes gracefully; nothing is left either.
func TestNoStrayAfterEOF(t *testing.T) {
	dir := straysPlugin(t, 1)
	s := run(t, dir)
	s.call("c1", "test/ping", nil)
	strays := strayPids(t, dir, 0)
	s.stdin.Close()
	s.wait()
	expectGone(t, "the end of stdin", strays)
}

// A crash leaves nothing of the crashed program behind.
func TestNoStrayAfterCrash(t *testing.T) {
	dir := straysPlugin(t, 1)
	s := run(t, dir, "--follow")
	s.call("c1", "test/ping", nil)
	strays := strayPids(t, dir, 0)
	if a := s.call("c2", "test/crash", nil); a.str("default") != "crashed" {
		t.Errorf("test/crash: got %v, want the crashed default", a)
	}
	s.seenOrNext("ready after the restart", func(l line) bool {
		return l.str("op") == "state" && l.str("state") == "ready" && l["crashes"] == 1.0
	})
	expectGone(t, "a crash", strays)
	strayPids(t, dir, 3) // the restarted program's, killed at cleanup if left
	s.close()
}

// The memory of children that escaped the group counts, and the memory
// stop leaves nothing behind.
func TestEscapedMemoryCountsAndStopLeavesNothing(t *testing.T) {
	dir := heavyStraysPlugin(t, 60) // 3 strays of 60 MiB: any two pass the limit
	s := run(t, dir, "--follow", "--memory-limit", "100MB")
	s.call("c1", "test/ping", nil)
	strays := strayPids(t, dir, 0)
	letStraysTakeMemory(t, dir)
	st := s.next("the memory stop", func(l line) bool { return l.str("op") == "state" && l.str("state") == "stopped" })
	if !strings.Contains(st.str("reason"), "past the limit of 100 MB") {
		t.Errorf("stopped for %q, want the memory limit", st.str("reason"))
	}
	expectGone(t, "the memory stop", strays)
	s.close()
}

// Disable and restart stop the program and all it started, as close does.
func TestNoStrayAfterDisableOrRestart(t *testing.T) {
	for _, op := range []string{"disable", "restart"} {
		t.Run(op, func(t *testing.T) {
			dir := straysPlugin(t, 1)
			s := run(t, dir)
			s.call("c1", "test/ping", nil)
			strays := strayPids(t, dir, 0)
			s.send(`{"op":"` + op + `"}`)
			s.next("the state after "+op, isOp("state"))
			expectGone(t, op, strays)
			if op == "restart" {
				s.call("c2", "test/ping", nil) // the new program is up
				strays = strayPids(t, dir, 3)
			}
			s.close()
			expectGone(t, "close after "+op, strays)
		})
	}
}
