package process

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestProgramDiesWithTheHost kills a host with SIGKILL, leaving it no
// chance to stop its program: the program gets its Pdeathsig.
func TestProgramDiesWithTheHost(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	host := exec.Command(self)
	host.Env = append(withoutFakeEnv(os.Environ()), fakeEnv+"=mini-host", quickExit)
	host.ExtraFiles = []*os.File{w}
	host.Stderr = os.Stderr
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	var leader int
	if _, err := fmt.Sscanf(nextLine(t, linesOf(t, r)), "leader %d", &leader); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.PidfdOpen(leader, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	_ = host.Process.Kill()
	_ = host.Wait()
	awaitPidfd(t, fd, "the program's end after its host was killed")
	_, _ = unix.Wait4(leader, nil, unix.WNOHANG, nil) // adopted by this test binary, the subreaper
}

func awaitPidfd(t *testing.T, fd int, what string) {
	t.Helper()
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, int(testDeadline.Milliseconds()))
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			t.Fatalf("%s did not happen within %v (%v)", what, testDeadline, err)
		}
		return
	}
}

// TestProgramOutlivesTheThreadThatStartedIt starts a program from a
// goroutine locked to its thread that then returns, which ends the thread:
// Linux sends Pdeathsig when the thread that started a process exits, so
// Start must not start it from the caller's thread.
func TestProgramOutlivesTheThreadThatStartedIt(t *testing.T) {
	spec := fakeSpec(t, "echo")
	ch := make(chan started, 1)
	go startLocked(spec, ch)
	s := <-ch
	if s.err != nil {
		t.Fatal(s.err)
	}
	t.Cleanup(func() { stop(t, s.p, stoppedNow(), 0) })
	waitThreadGone(t, s.tid)
	lines := stdoutLines(t, s.p)
	if _, err := io.WriteString(s.p.Stdin(), "still here\n"); err != nil {
		t.Fatal(err)
	}
	if got := nextLine(t, lines); got != "still here" {
		t.Fatalf("program answered %q", got)
	}
}

type started struct {
	p   *Process
	tid int
	err error
}

// startLocked starts spec from a goroutine locked to a thread other than
// the main one, which ends with it. The main thread is never ended, only
// parked: a test on it would prove nothing, so there it hands over to
// another goroutine.
func startLocked(spec Spec, ch chan<- started) {
	runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
	if unix.Gettid() == os.Getpid() {
		go startLocked(spec, ch)
		return
	}
	p, err := Start(spec)
	ch <- started{p, unix.Gettid(), err}
}

// waitThreadGone waits for the thread tid of this process to end. Nothing
// tells a thread's end but its entry in /proc, so it is polled.
func waitThreadGone(t *testing.T, tid int) {
	t.Helper()
	task := filepath.Join(procRoot, "self", "task", strconv.Itoa(tid))
	deadline := time.Now().Add(testDeadline)
	for {
		if _, err := os.Stat(task); err != nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("thread %d still runs after %v", tid, testDeadline)
		}
		runtime.Gosched()
		_ = syscall.Nanosleep(&syscall.Timespec{Nsec: int64(time.Millisecond)}, nil)
	}
}
