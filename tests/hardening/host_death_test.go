//go:build linux

package hardening

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A host killed with SIGKILL leaves nothing of its plugin running: the
// program, a child in its group, one in a session of its own, one in a
// group of its own and a double-forked orphan all go, and so does the
// watchdog that killed them (docs/protocol.md#the-hosts-death).
func TestNothingOutlivesAKilledHost(t *testing.T) {
	dir := plugin{fixture: "strays", files: map[string]string{"strays.json": `{"mib":1,"family":true}`}}.write(t)
	s := run(t, dir)
	s.call("c1", "test/ping", nil)
	family := strayPids(t, dir, 0)
	if len(family) != 5 {
		t.Fatalf("the plugin said %d pids, want 5 (4 strays and itself)", len(family))
	}
	watchdog := childrenNamed(t, s.cmd.Process.Pid, "--escouade-process-watchdog")
	if len(watchdog) != 1 {
		t.Fatalf("the host has %d watchdogs, want 1", len(watchdog))
	}
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-s.done
	expectGoneWithin(t, "the host's SIGKILL", append(family, watchdog...), waitLong(t))
}

// childrenNamed is the children of parent whose command line holds arg.
func childrenNamed(t *testing.T, parent int, arg string) []proc {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(stat)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if f[1] == strconv.Itoa(parent) && strings.Contains(string(cmd), arg) {
			out = append(out, proc{pid, f[19]})
		}
	}
	return out
}

// expectGoneWithin polls /proc until each process is gone, within d.
func expectGoneWithin(t *testing.T, after string, procs []proc, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for _, p := range procs {
		for p.alive() && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if p.alive() {
			cmd, _ := os.ReadFile("/proc/" + strconv.Itoa(p.pid) + "/cmdline")
			t.Errorf("after %s: process %d (%q) is still running after %v", after, p.pid, cmd, d)
		}
	}
}
