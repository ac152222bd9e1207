//go:build linux

package hardening

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
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

// expectGoneWithin waits for each process to end, within d. A process
// that is not the test's child has no wait, but it has a pidfd, which
// polls readable when it ends: an event, not a poll of /proc.
func expectGoneWithin(t *testing.T, after string, procs []proc, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for _, p := range procs {
		if !p.waitGone(time.Until(deadline)) {
			cmd, _ := os.ReadFile("/proc/" + strconv.Itoa(p.pid) + "/cmdline")
			t.Errorf("after %s: process %d (%q) is still running after %v", after, p.pid, cmd, d)
		}
	}
}

// waitGone reports whether p ended within d. The pidfd is taken first and
// p's start time checked after, so the pidfd is p's and not a later
// process's that reused its pid.
func (p proc) waitGone(d time.Duration) bool {
	fd, err := unix.PidfdOpen(p.pid, 0)
	if err != nil {
		return !p.alive()
	}
	defer unix.Close(fd)
	deadline := time.Now().Add(d)
	for p.alive() {
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds, int(left.Milliseconds())+1); err != nil && err != unix.EINTR {
			return !p.alive()
		}
	}
	return true
}

// A host killed while a module compiles in its child does not leave the
// child compiling: it dies with the host, before its compile could end
// and be kept in the cache.
func TestCompileChildDiesWithTheHost(t *testing.T) {
	dir := helloWasmPlugin(t)
	home := t.TempDir()
	cmd := exec.Command(filepath.Join(bins, "escouade-plugin"), "build", dir, "--home", home)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan struct{})
	go func() { _ = cmd.Wait(); close(ended) }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-ended })
	var child []proc
	deadline := time.Now().Add(waitLong(t))
	for len(child) == 0 {
		child = childrenNamed(t, cmd.Process.Pid, "")
		select {
		case <-ended:
			t.Fatal("the build ended before its compile child was seen")
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("no compile child seen")
		}
		runtime.Gosched()
	}
	// It reads the module on its stdin first: a host killed then leaves
	// it a cut module, which it refuses at once. Killed once it has spent
	// a second of CPU, it is compiling.
	for cpuTicks(child[0].pid) < 100 {
		select {
		case <-ended:
			t.Fatal("the build ended before its compile child had compiled for a second")
		default:
		}
		runtime.Gosched()
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-ended
	t.Cleanup(func() {
		for _, p := range child {
			if p.alive() {
				_ = syscall.Kill(p.pid, syscall.SIGKILL)
			}
		}
	})
	expectGoneWithin(t, "the build's SIGKILL", child, waitLong(t))
	_ = filepath.Walk(home, func(path string, info os.FileInfo, err error) error {
		if err == nil && info.IsDir() && (info.Name() == "stacked" || info.Name() == "checked") {
			return filepath.SkipDir // the host's own rewrite, made before the compile
		}
		if err == nil && info.Mode().IsRegular() && !strings.HasSuffix(path, ".tmp") {
			t.Errorf("the compile child went on to the end after its host was killed: %s (%d bytes)", path, info.Size())
		}
		return nil
	})
}

// cpuTicks is the CPU time pid has spent, in clock ticks (1/100 s); 0
// once it is gone.
func cpuTicks(pid int) int {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	s := string(stat)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	user, _ := strconv.Atoi(f[11])
	system, _ := strconv.Atoi(f[12])
	return user + system
}

// A host killed with SIGKILL while a module's proc/run program runs
// leaves nothing of it: the program, a setsid child, a `setsid -f` one
// and a double-forked orphan all go.
func TestProcRunDiesWithAKilledHost(t *testing.T) {
	dir := relayPlugin(t, map[string]any{"programs": []string{"sh"}, "files": []string{"temp"}}, nil)
	tokenFile := filepath.Join(t.TempDir(), "token")
	s := run(t, dir, "--delay", "relay/ask=120s")
	s.sendJSON(map[string]any{"op": "call", "id": "c1", "method": "relay/ask",
		"params": map[string]any{"method": "proc/run", "n": 1, "params": map[string]any{
			"program": "sh", "args": []string{"-c", strays, "sh", tokenFile, "sleep 1000"},
			"cwd": map[string]any{"root": "temp", "path": "."}}}})
	token := readToken(t, tokenFile)
	// The three strays and the program's own last sleep run before the
	// kill, or the test would prove nothing.
	deadline := time.Now().Add(waitLong(t))
	for sleeps(tokenHolders(token)) < 4 {
		if time.Now().After(deadline) {
			t.Fatalf("the program's sleeps did not all start: %q", tokenHolders(token))
		}
		runtime.Gosched()
	}
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-s.done
	noneHold(t, token, "the host's SIGKILL")
}

func sleeps(procs []string) int {
	n := 0
	for _, p := range procs {
		if strings.Contains(p, " sleep 1000") {
			n++
		}
	}
	return n
}
