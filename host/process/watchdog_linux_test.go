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
