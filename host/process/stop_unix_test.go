//go:build unix

package process

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Graces of the stop tests. A stage the program ignores costs its grace in
// full, so that grace is short; a stage the program honours returns as soon
// as it exits, so that grace is long enough for a loaded machine to let the
// program exit in time.
const (
	ignoredGrace  = 50 * time.Millisecond
	honouredGrace = time.Second
)

func TestStopEscalates(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name  string
		mode  string
		args  []string
		ctx   context.Context
		grace time.Duration
		want  Exit
	}{
		{"closing stdin is enough", "echo", nil, context.Background(), honouredGrace, Exit{}},
		{"SIGTERM ends it", "hold", nil, context.Background(), honouredGrace, Exit{Code: -1, Signal: "terminated"}},
		{"SIGTERM is handled", "term-exit", []string{"7"}, context.Background(), honouredGrace, Exit{Code: 7}},
		{"SIGKILL when SIGTERM is ignored", "ignore-term", nil, context.Background(), ignoredGrace, Exit{Code: -1, Signal: "killed"}},
		{"a cancelled context kills at once", "hold", nil, cancelled, time.Hour, Exit{Code: -1, Signal: "killed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // most of each case is a grace spent waiting
			p := start(t, fakeSpec(t, tt.mode, tt.args...))
			waitRunning(t, p, tt.mode)
			if got := p.Exit(); got != (Exit{}) {
				t.Errorf("Exit before the end = %v, want the zero Exit", got)
			}
			stop(t, p, tt.ctx, tt.grace)
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
	p := start(t, fakeSpec(t, mode))
	var child int
	if _, err := fmt.Sscanf(nextLine(t, stdoutLines(t, p)), "child %d", &child); err != nil {
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

func TestStopClosesStderrHeldByAnEscapedChild(t *testing.T) {
	p, child := startOrphaner(t, "escape")
	t.Cleanup(func() {
		_ = syscall.Kill(child, syscall.SIGKILL)
		waitGone(t, child)
	})
	stop(t, p, context.Background(), ignoredGrace)
	if !isClosed(p.stderrDone) {
		t.Error("Stop returned before the stderr reader ended")
	}
	if processGone(child) {
		t.Errorf("child %d that left the group was killed with it", child)
	}
}

// waitGone polls until pid is gone, a zombie counting as gone: its parent
// died, and who reaps it is not ours to wait for.
func waitGone(t *testing.T, pid int) {
	t.Helper()
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
	return true
}
