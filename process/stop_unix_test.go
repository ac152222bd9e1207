//go:build unix

package process

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestStopEscalates follows Stop through its stages with a clock that fires
// a grace only for a stage the program ignores: a stage it honours ends
// with its exit however loaded the machine is.
func TestStopEscalates(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name  string
		mode  string
		args  []string
		ctx   context.Context
		fired int // graces that run out: the stages the program ignores
		want  Exit
	}{
		{"closing stdin is enough", "echo", nil, context.Background(), 0, Exit{}},
		{"SIGTERM ends it", "hold", nil, context.Background(), 1, Exit{Code: -1, Signal: "terminated"}},
		{"SIGTERM is handled", "term-exit", []string{"7"}, context.Background(), 1, Exit{Code: 7}},
		{"SIGKILL when SIGTERM is ignored", "ignore-term", nil, context.Background(), 2, Exit{Code: -1, Signal: "killed"}},
		{"a cancelled context kills at once", "hold", nil, cancelled, 0, Exit{Code: -1, Signal: "killed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clock := newFakeClock()
			spec := fakeSpec(t, tt.mode, tt.args...)
			spec.timer = clock.newTimer
			p := start(t, spec)
			waitRunning(t, p, tt.mode)
			if got := p.Exit(); got != (Exit{}) {
				t.Errorf("Exit before the end = %v, want the zero Exit", got)
			}
			stopped := make(chan struct{})
			go func() {
				defer close(stopped)
				p.Stop(tt.ctx, time.Hour)
			}()
			for range tt.fired {
				clock.next(t).fire <- time.Now()
			}
			waitClosed(t, stopped, "Stop")
			if !isClosed(p.Done()) || !isClosed(p.stderrDone) {
				t.Fatal("Stop returned before the program and its stderr reader ended")
			}
			if diff := cmp.Diff(tt.want, p.Exit()); diff != "" {
				t.Errorf("Exit (-want +got):\n%s", diff)
			}
			if _, err := io.ReadAll(p.Stdout()); err != nil {
				t.Errorf("stdout after Stop: %v, want its end", err)
			}
		})
	}
}

// waitRunning returns once the fake program is ready for what the test
// does to it.
func waitRunning(t *testing.T, p *Process, mode string) {
	t.Helper()
	lines := stdoutLines(t, p)
	if mode == "echo" {
		if _, err := io.WriteString(p.Stdin(), "ping\n"); err != nil {
			t.Fatal(err)
		}
		if got := nextLine(t, lines); got != "ping" {
			t.Fatalf("echo answered %q", got)
		}
		return
	}
	if got := nextLine(t, lines); got != "ready" {
		t.Fatalf("program said %q, want ready", got)
	}
}

func TestStopTwiceAtOnce(t *testing.T) {
	p := start(t, fakeSpec(t, "ignore-term"))
	waitRunning(t, p, "ignore-term")
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() { p.Stop(context.Background(), ignoredGrace) })
	}
	both := make(chan struct{})
	go func() {
		wg.Wait()
		close(both)
	}()
	waitClosed(t, both, "both Stops")
	if diff := cmp.Diff(Exit{Code: -1, Signal: "killed"}, p.Exit()); diff != "" {
		t.Errorf("Exit (-want +got):\n%s", diff)
	}
	p.KillGroup() // after the end: nothing to do, nothing to fail
}

// startOrphaner runs a program that starts a child and exits (mode "fork":
// the child stays in the group; "escape": it leaves), and returns it with
// the child's pid once the program has exited.
func startOrphaner(t *testing.T, mode string) (*Process, int) {
	t.Helper()
	p, side := startWithSide(t, fakeSpec(t, mode))
	var child int
	if _, err := fmt.Sscanf(nextLine(t, side), "child %d", &child); err != nil {
		t.Fatal(err)
	}
	// The child holds stderr open: Done must not wait for it past the drain.
	waitClosed(t, p.Done(), "Done while a child holds stderr")
	if diff := cmp.Diff(Exit{}, p.Exit()); diff != "" {
		t.Errorf("Exit (-want +got):\n%s", diff)
	}
	if processGone(child) {
		t.Fatalf("child %d is gone before the group was killed", child)
	}
	return p, child
}

func TestKillGroupKillsOrphanedChild(t *testing.T) {
	p, child := startOrphaner(t, "fork")
	p.KillGroup()
	waitGone(t, child)
	p.KillGroup() // idempotent
}

func TestStopAfterExitKillsOrphanedChild(t *testing.T) {
	p, child := startOrphaner(t, "fork")
	stop(t, p, context.Background(), ignoredGrace)
	waitGone(t, child)
	if !isClosed(p.stderrDone) {
		t.Error("Stop returned before the stderr reader ended")
	}
}

// waitGone returns once pid is gone, a zombie counting as gone where the
// host is not its subreaper (then who reaps it is not ours to wait for).
// On Linux, KillGroup and Stop return once what they killed is gone and
// reaped, so it must be gone at once.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	if runtime.GOOS == "linux" {
		if !processGone(pid) || isZombie(pid) {
			stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			t.Fatalf("process %d still there after its program was killed: %s (self %d)", pid, stat, os.Getpid())
		}
		return
	}
	poll := time.NewTicker(5 * time.Millisecond)
	defer poll.Stop()
	deadline := time.After(testDeadline)
	for !processGone(pid) {
		select {
		case <-poll.C:
		case <-deadline:
			t.Fatalf("process %d still runs %v after its group was killed", pid, testDeadline)
		}
	}
}

func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	return isZombie(pid)
}

// isZombie reports whether pid is listed as a zombie.
func isZombie(pid int) bool {
	procs, err := listProcesses()
	if err != nil {
		return false
	}
	for _, p := range procs {
		if p.PID == pid {
			return p.State == 'Z'
		}
	}
	return false
}

// TestStopAfterShutdownSkipsTheStdinGrace follows the steps of Stop on a
// program that ignores the end of its stdin and SIGTERM, with a clock that
// fires a grace only once the test has seen what must come before it.
// Already asked (shutdown was sent and its delay ran): stdin closed and SIGTERM at
// once, one grace, SIGKILL. Otherwise: stdin closed, a grace, SIGTERM, a
// grace, SIGKILL.
func TestStopAfterShutdownSkipsTheStdinGrace(t *testing.T) {
	const grace = time.Hour // only the clock ends it
	tests := []struct {
		name  string
		asked bool
		steps [][]string // what the program reports before each grace fires
	}{
		{"asked", true, [][]string{{"eof", "term"}}},
		{"not asked", false, [][]string{{"eof"}, {"term"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clock := newFakeClock()
			spec := fakeSpec(t, "term-report")
			spec.timer = clock.newTimer
			p, side := startWithSide(t, spec)
			if got := nextLine(t, side); got != "ready" {
				t.Fatalf("program said %q, want ready", got)
			}
			stopped := make(chan struct{})
			go func() {
				defer close(stopped)
				if tt.asked {
					p.StopAlreadyAsked(context.Background(), grace)
					return
				}
				p.Stop(context.Background(), grace)
			}()
			for i, want := range tt.steps {
				var got []string
				for range want {
					got = append(got, nextLine(t, side))
				}
				sort.Strings(got)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("before grace %d (-want +got):\n%s", i+1, diff)
				}
				tm := clock.next(t)
				if tm.d != grace {
					t.Errorf("grace %d is %v, want %v", i+1, tm.d, grace)
				}
				tm.fire <- time.Now()
			}
			waitClosed(t, stopped, "Stop")
			clock.none(t)
			var more []string
			for side.Scan() { // the program is gone: its side channel ends
				more = append(more, side.Text())
			}
			if len(more) > 0 {
				t.Errorf("the program also reported %q: one SIGTERM was sent, no more", more)
			}
			if diff := cmp.Diff(Exit{Code: -1, Signal: "killed"}, p.Exit()); diff != "" {
				t.Errorf("Exit (-want +got):\n%s", diff)
			}
		})
	}
}
