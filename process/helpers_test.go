package process

import (
	"bufio"
	"context"
	"os"
	"sync"
	"testing"
	"time"
)

// testDeadline bounds every wait of a test on a real process: a broken
// process fails the test instead of hanging it.
const testDeadline = 10 * time.Second

// ignoredGrace is the grace of the stop tests whose program ignores every
// stage but SIGKILL: the outcome does not depend on it, only their length.
const ignoredGrace = 50 * time.Millisecond

// quickExit spares the fakes the second the race detector waits at exit
// for late reports; the fakes have no goroutines that could race then.
const quickExit = "GORACE=atexit_sleep_ms=0"

// fakeSpec runs the test binary as the fake program mode with args.
func fakeSpec(t testing.TB, mode string, args ...string) Spec {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Spec{
		Dir:     t.TempDir(),
		Command: append([]string{self}, args...),
		Env:     fakeEnvVars(t, mode),
	}
}

// fakeEnvVars is the environment of a fake program: its mode, quickExit,
// and a coverage folder, without which a test binary built with -cover
// warns on stderr at exit.
func fakeEnvVars(t testing.TB, mode string) []string {
	return []string{fakeEnv + "=" + mode, quickExit, "GOCOVERDIR=" + t.TempDir()}
}

// fakeEnvNames are the names of fakeEnvVars, which a Transport passes only
// when told to (Transport.Passing).
var fakeEnvNames = []string{fakeEnv, "GORACE", "GOCOVERDIR"}

// start starts spec and stops the program when the test ends.
func start(t testing.TB, spec Spec) *Process {
	t.Helper()
	return startOn(t, NewLauncher(), spec)
}

// startOn is start with launcher l.
func startOn(t testing.TB, l *Launcher, spec Spec) *Process {
	t.Helper()
	p, err := l.Start(spec)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		stop(t, p, context.Background(), 0)
		_ = p.Stdout().Close()
	})
	return p
}

// stdoutLines reads the program's stdout line by line, failing the test
// past testDeadline.
func stdoutLines(t testing.TB, p *Process) *bufio.Scanner {
	t.Helper()
	out, ok := p.Stdout().(*os.File)
	if !ok {
		t.Fatalf("Stdout is a %T, want *os.File", p.Stdout())
	}
	return linesOf(t, out)
}

// linesOf reads f line by line; past testDeadline f is closed, which ends
// a read blocked on a pipe on every system (a pipe on Windows takes no
// read deadline).
func linesOf(t testing.TB, f *os.File) *bufio.Scanner {
	t.Helper()
	timer := time.AfterFunc(testDeadline, func() { _ = f.Close() })
	t.Cleanup(func() { timer.Stop() })
	return bufio.NewScanner(f)
}

// startWithSide starts spec with a side channel on descriptor 3, where the
// fakes and their children report their pids and what they saw: stdout is
// the program's wire, which its children share, so a report there could
// come before or after the program's own lines.
func startWithSide(t *testing.T, spec Spec) (*Process, *bufio.Scanner) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	spec.extraFiles = []*os.File{w}
	p := start(t, spec)
	_ = w.Close() // the program and its children hold it now
	return p, linesOf(t, r)
}

// nextLine returns the next stdout line.
func nextLine(t testing.TB, lines *bufio.Scanner) string {
	t.Helper()
	if !lines.Scan() {
		t.Fatalf("no line on stdout: %v", lines.Err())
	}
	return lines.Text()
}

// stop runs p.Stop and fails the test when it does not return within
// testDeadline, rather than hanging it.
func stop(t testing.TB, p *Process, ctx context.Context, grace time.Duration) {
	t.Helper()
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		p.Stop(ctx, grace)
	}()
	waitClosed(t, stopped, "Stop")
}

// stoppedNow is a context already done: a Stop without graces, as the host
// stops a program that ended.
func stoppedNow() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

func waitClosed(t testing.TB, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(testDeadline):
		t.Fatalf("%s did not happen within %v", what, testDeadline)
	}
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// lineLog collects what Spec.Stderr receives.
type lineLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *lineLog) add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, line)
}

func (l *lineLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}
