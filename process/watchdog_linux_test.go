package process

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestNothingOutlivesAKilledHost kills, with SIGKILL, a host that runs a
// program (started by Start, as a plugin's or an agent's, and by
// StartFamily, as proc/run's) whose stray stays in its group, moves to a
// session of its own, a group of its own, or is orphaned by a double fork:
// the program, the stray and the watchdog are all gone afterwards.
func TestNothingOutlivesAKilledHost(t *testing.T) {
	for _, kind := range []string{"plugin", "family"} {
		for _, how := range []string{"group", "setsid", "setpgid", "daemon"} {
			t.Run(kind+"/"+how, func(t *testing.T) {
				t.Parallel()
				host, side := startDyingHost(t, kind, how)
				procs := readFamily(t, side)
				_ = host.Process.Kill()
				_ = host.Wait()
				for what, k := range procs {
					awaitGone(t, what, k)
				}
			})
		}
	}
}

// startDyingHost runs the test binary as a host of the program kind/how
// (fakeDyingHost), with a side channel its program's processes report on.
func startDyingHost(t *testing.T, kind, how string) (*exec.Cmd, interface {
	Scan() bool
	Text() string
}) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	host := exec.Command(self, kind, how)
	host.Env = append(withoutFakeEnv(os.Environ()), fakeEnv+"=dying-host", quickExit)
	host.ExtraFiles = []*os.File{w}
	host.Stderr = os.Stderr
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	t.Cleanup(func() { _ = host.Process.Kill(); _ = host.Wait() })
	return host, linesOf(t, r)
}

// readFamily reads the three reports of a dying host's side channel: the
// program's pid, its stray's and the watchdog's, and names each for good
// by its start time. What is left at the end of the test is killed.
func readFamily(t *testing.T, side interface {
	Scan() bool
	Text() string
}) map[string]procKey {
	t.Helper()
	procs := make(map[string]procKey)
	for len(procs) < 3 {
		if !side.Scan() {
			t.Fatalf("the side channel ended after %v", procs)
		}
		var what string
		var pid int
		if _, err := fmt.Sscanf(side.Text(), "%s %d", &what, &pid); err != nil || pid <= 0 {
			t.Fatalf("side channel: %q (%v)", side.Text(), err)
		}
		k := procKey{pid, startTimeOf(pid)}
		procs[what] = k
		t.Cleanup(func() {
			if alive(k) {
				_ = syscall.Kill(k.pid, syscall.SIGKILL)
			}
		})
	}
	return procs
}

// awaitGone waits until the process k no longer runs, polling /proc: an
// orphan adopted by init gives this test nothing to wait on. A zombie
// this test binary adopted (it is a subreaper) is reaped.
func awaitGone(t *testing.T, what string, k procKey) {
	t.Helper()
	deadline := time.Now().Add(3 * testDeadline)
	for alive(k) {
		if time.Now().After(deadline) {
			cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", k.pid))
			t.Fatalf("%s %d (%q) still runs %v after its host was killed", what, k.pid, strings.ReplaceAll(string(cmd), "\x00", " "), 3*testDeadline)
		}
		_ = syscall.Nanosleep(&syscall.Timespec{Nsec: int64(10 * time.Millisecond)}, nil)
	}
	if listed(k) {
		_, _ = unix.Wait4(k.pid, nil, unix.WNOHANG, nil)
	}
}

// The watchdog's list: a program is known from its "+" line, its group
// from its "g" line, and forgotten at its "-" line; malformed lines change
// nothing.
func TestWatchListLines(t *testing.T) {
	in := strings.Join([]string{
		"+ a", "g a 100 7",
		"+ b", "g b 1 9", // group 1 is init's: never taken
		"+ c", "- c",
		"g d x 1", "+", "", "junk line here",
	}, "\n")
	got := readWatchList(strings.NewReader(in))
	want := map[string]watched{"a": {pgid: 100, since: 7}, "b": {}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("readWatchList = %v, want %v", got, want)
	}
}

// FuzzWatchList: no line crashes the watchdog's reader, and no group it
// keeps is init's or below.
func FuzzWatchList(f *testing.F) {
	f.Add("+ a\ng a 100 7\n- a\n")
	f.Add("g a -5 1\ng b 0 0\n+ \n")
	f.Fuzz(func(t *testing.T, in string) {
		for token, w := range readWatchList(strings.NewReader(in)) {
			if w.pgid != 0 && w.pgid <= 1 {
				t.Errorf("token %q kept group %d", token, w.pgid)
			}
		}
	})
}

// A watchdog killed on its own is started again at the host's next
// program and told of those still running: the host's death then kills
// the first program's stray too.
func TestAKilledWatchdogIsReplaced(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	host := exec.Command(self)
	host.Env = append(withoutFakeEnv(os.Environ()), fakeEnv+"=dying-host-again", quickExit)
	host.ExtraFiles = []*os.File{w}
	host.Stderr = os.Stderr
	next, err := host.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	t.Cleanup(func() { _ = host.Process.Kill(); _ = host.Wait() })
	side := linesOf(t, r)
	first := readFamily(t, side)
	if err := syscall.Kill(first["watchdog"].pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	awaitGone(t, "the first watchdog", first["watchdog"])
	if _, err := next.Write([]byte("again\n")); err != nil {
		t.Fatal(err)
	}
	second := readFamily(t, side)
	// The host may have replaced it at its end or at this start, and told
	// the new one of both programs either way: the one it reported may be
	// the one killed.
	second["watchdog"] = awaitNewWatchdog(t, host.Process.Pid, first["watchdog"])
	_ = host.Process.Kill()
	_ = host.Wait()
	for what, k := range map[string]procKey{"first program": first["leader"], "its stray": first["pid"],
		"second program": second["leader"], "its stray too": second["pid"], "the watchdog": second["watchdog"]} {
		awaitGone(t, what, k)
	}
}

// awaitNewWatchdog waits for a watchdog of host other than old, polling
// /proc: nothing tells of a process another starts.
func awaitNewWatchdog(t *testing.T, host int, old procKey) procKey {
	t.Helper()
	deadline := time.Now().Add(testDeadline)
	for {
		procs, err := listProcesses()
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range procs {
			cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.PID))
			if p.PPID == host && p.key() != old && !p.zombie() && strings.Contains(string(cmd), watchdogArg) {
				return p.key()
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no new watchdog within %v", testDeadline)
		}
		_ = syscall.Nanosleep(&syscall.Timespec{Nsec: int64(5 * time.Millisecond)}, nil)
	}
}
