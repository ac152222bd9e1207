package process

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// strayMiB is what each stray of the hostile fakes holds.
const strayMiB = 24

// TestNothingOutlivesItsProgram runs programs that start a stray which
// escapes their group (setsid, setpgid, a daemon's double fork) and
// ignores SIGTERM, and ends them the three ways the host does: Stop, a
// crash (the program exits by itself, then the host calls Stop without
// graces), and the memory stop (the stray counted by Memory, then Stop).
// After each, no process of theirs is left, not even a zombie.
func TestNothingOutlivesItsProgram(t *testing.T) {
	for _, how := range []string{"setsid", "setpgid", "daemon"} {
		for _, end := range []string{"stop", "crash", "memory"} {
			t.Run(how+"/"+end, func(t *testing.T) {
				t.Parallel()
				then := "hold"
				if end == "crash" {
					then = "exit"
				}
				p, side := startWithSide(t, fakeSpec(t, "spawn", how, then, strconv.Itoa(strayMiB)))
				stray := readStray(t, side, then == "hold")
				switch end {
				case "stop":
					stop(t, p, context.Background(), ignoredGrace)
				case "crash":
					waitClosed(t, p.Done(), "the program's exit")
					if !alive(stray) {
						t.Fatalf("stray %v is gone before the program was stopped", stray)
					}
					expectStrayCounted(t, p) // adopted by the host: in no tree of the program's
					stop(t, p, stoppedNow(), ignoredGrace)
				case "memory":
					expectStrayCounted(t, p)
					stop(t, p, context.Background(), ignoredGrace)
				}
				if alive(stray) || listed(stray) {
					t.Errorf("stray %v is still there after Stop", stray)
				}
				if left := tagged(t, p.token); len(left) > 0 {
					t.Errorf("processes with the program's token after Stop: %v", left)
				}
			})
		}
	}
}

// readStray reads the stray's pid from the side channel (and the leader's
// report when it holds), and names the stray for good by its start time.
func readStray(t *testing.T, side interface {
	Scan() bool
	Text() string
}, leaderReports bool) procKey {
	t.Helper()
	var stray procKey
	for want := 1 + btoi(leaderReports); want > 0; want-- {
		if !side.Scan() {
			t.Fatal("the side channel ended before the stray said its pid")
		}
		if pid, ok := strings.CutPrefix(side.Text(), "pid "); ok {
			n, err := strconv.Atoi(pid)
			if err != nil {
				t.Fatal(err)
			}
			stray = procKey{n, startTimeOf(n)}
		}
	}
	if stray.pid == 0 {
		t.Fatal("the stray did not say its pid")
	}
	return stray
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// expectStrayCounted checks that Memory counts the stray, which is in no
// group of the program's (and, for a daemon or once the program exited, in
// no tree of its either).
func expectStrayCounted(t *testing.T, p *Process) {
	t.Helper()
	total, err := p.group.memoryWithin(0)
	if err != nil {
		t.Fatal(err)
	}
	var leader uint64
	if info, ok := statOf(p.PID()); ok && !p.leaderExited() {
		leader = info.RSS * uint64(os.Getpagesize())
	}
	if total < leader || total-leader < strayMiB<<20 {
		t.Errorf("Memory = %d MiB with the program alone at %d MiB; want the stray's %d MiB too",
			total>>20, leader>>20, strayMiB)
	}
}

// alive reports whether the process k still runs (a zombie does not).
func alive(k procKey) bool {
	info, ok := statOf(k.pid)
	return ok && info.StartTime == k.start && !info.zombie()
}

// listed reports whether the process k is still in the process table, a
// zombie included.
func listed(k procKey) bool {
	info, ok := statOf(k.pid)
	return ok && info.StartTime == k.start
}

func statOf(pid int) (procInfo, bool) {
	stat, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "stat"))
	if err != nil {
		return procInfo{}, false
	}
	info, err := parseStat(stat, 1)
	return info, err == nil
}

// tagged lists the running processes whose environment holds token.
func tagged(t *testing.T, token string) []int {
	t.Helper()
	if token == "" {
		t.Fatal("the program was given no token")
	}
	procs, err := listProcesses()
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, p := range procs {
		if !p.zombie() && readToken(p.PID) == token {
			out = append(out, p.PID)
		}
	}
	return out
}

func TestStopKillsAnEscapedChildHoldingStderr(t *testing.T) {
	p, child := startOrphaner(t, "escape")
	key := procKey{child, startTimeOf(child)}
	stop(t, p, context.Background(), ignoredGrace)
	if !isClosed(p.stderrDone) {
		t.Error("Stop returned before the stderr reader ended")
	}
	if listed(key) {
		t.Errorf("child %d that left the group outlived Stop", child)
	}
}

func TestStartSetsTheToken(t *testing.T) {
	p := start(t, fakeSpec(t, "env"))
	got := readReport(t, p)
	want := TokenEnv + "=" + p.token
	if len(p.token) != 32 || !contains(got.Env, want) {
		t.Errorf("environment %q, want %q with a token of 32 hex digits", got.Env, want)
	}
	q := start(t, fakeSpec(t, "env"))
	if q.token == p.token {
		t.Errorf("two programs share the token %q", p.token)
	}
}

func TestStartReplacesAnInheritedToken(t *testing.T) {
	inherited := TokenEnv + "=from-the-host-of-this-host"
	spec := fakeSpec(t, "env")
	spec.Env = append(spec.Env, inherited)
	p := start(t, spec)
	got := readReport(t, p)
	if contains(got.Env, inherited) || !contains(got.Env, TokenEnv+"="+p.token) {
		t.Errorf("environment %q, want the program's own token and not %q", got.Env, inherited)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func ExampleTokenEnv() {
	fmt.Println(TokenEnv)
	// Output: ESCOUADE_INSTANCE_TOKEN
}

// TestAdoptedOrphanIsReaped follows an orphan of a child the host started
// without Start (as other code of the app does): seen with its parent,
// then adopted by the host, its zombie is reaped at the next read of the
// table once it ends.
func TestAdoptedOrphanIsReaped(t *testing.T) {
	prepareStart(nil) // the host is the subreaper
	snapshots := &newTable().snapshots
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	parent := exec.Command(self)
	parent.Env = append(withoutFakeEnv(os.Environ()), fakeEnv+"=fork-wait", quickExit)
	parent.ExtraFiles = []*os.File{w}
	stdin, err := parent.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	var pid int
	if _, err := fmt.Sscanf(nextLine(t, linesOf(t, r)), "child %d", &pid); err != nil {
		t.Fatal(err)
	}
	child := procKey{pid, startTimeOf(pid)}
	if _, err := snapshots.get(0, 0); err != nil { // the child, seen with its parent
		t.Fatal(err)
	}
	_ = stdin.Close()
	_ = parent.Wait()
	if _, err := snapshots.get(0, 0); err != nil { // seen adopted
		t.Fatal(err)
	}
	fd, err := openChecked(procInfo{PID: child.pid, StartTime: child.start})
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if err := unix.PidfdSendSignal(fd, syscall.SIGKILL, nil, 0); err != nil {
		t.Fatal(err)
	}
	awaitPidfd(t, fd, "the orphan's end")
	if _, err := snapshots.get(0, 0); err != nil { // reaps it
		t.Fatal(err)
	}
	if listed(child) {
		t.Errorf("orphan %d is still listed after it ended", child.pid)
	}
}

// TestTokenReadEmptyIsReadAgain: a process whose environment reads empty
// (as one in the middle of an exec does) is asked again later, so that
// once its new program runs with the token it is known as the program's.
func TestTokenReadEmptyIsReadAgain(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", "read go; exec env "+TokenEnv+"=the-token sleep 1000")
	cmd.Env = []string{}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	info, ok := statOf(cmd.Process.Pid)
	if !ok {
		t.Fatal("the process is not in /proc")
	}
	tb := newTable()
	if tok := tb.tokenOf(info); tok != "" {
		t.Fatalf("token %q before the exec", tok)
	}
	if _, err := in.Write([]byte("go\n")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(testDeadline)
	for tb.tokenOf(info) != "the-token" {
		if time.Now().After(deadline) {
			t.Fatalf("the token of the exec'd program is not read within %v", testDeadline)
		}
		_ = syscall.Nanosleep(&syscall.Timespec{Nsec: int64(5 * time.Millisecond)}, nil)
	}
}

// TestATokenlessReadHoldsOnlyForItsProgram: a process whose program shows
// an environment without the token (env's, in `env X=1 sh -c …`) and then
// execs one that carries it is known as the program's once the new one
// runs: what was read is kept for the program it was read in.
func TestATokenlessReadHoldsOnlyForItsProgram(t *testing.T) {
	cmd := exec.Command("/bin/sh", "-c", `read go; exec env X=1 sh -c 'read again; exec env `+TokenEnv+`=the-token sleep 1000'`)
	cmd.Env = []string{}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if _, err := in.Write([]byte("go\n")); err != nil {
		t.Fatal(err)
	}
	tb := newTable()
	deadline := time.Now().Add(testDeadline)
	for {
		info, ok := statOf(cmd.Process.Pid)
		if !ok {
			t.Fatal("the process is not in /proc")
		}
		if _, final := readTokenOnce(info.PID); final {
			if tok := tb.tokenOf(info); tok != "" {
				t.Fatalf("token %q before the last exec", tok)
			}
			break // the second sh runs, its environment read and kept: X=1, no token
		}
		if time.Now().After(deadline) {
			t.Fatalf("the second shell did not start within %v", testDeadline)
		}
		_ = syscall.Nanosleep(&syscall.Timespec{Nsec: int64(5 * time.Millisecond)}, nil)
	}
	if _, err := in.Write([]byte("again\n")); err != nil {
		t.Fatal(err)
	}
	for {
		info, _ := statOf(cmd.Process.Pid)
		if tb.tokenOf(info) == "the-token" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the token of the last program is not read within %v", testDeadline)
		}
		_ = syscall.Nanosleep(&syscall.Timespec{Nsec: int64(5 * time.Millisecond)}, nil)
	}
}
