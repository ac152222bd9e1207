package process

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/windows"
)

// The Job object's promise (docs/protocol.md#1-the-manifest, process
// group): the program and everything it starts end when the host stops
// it, and when the host itself is killed.

// escapeGroup has no meaning without process groups.
func escapeGroup() *syscall.SysProcAttr { return nil }

func runPlatformFake(mode string, args []string) (int, bool) {
	switch mode {
	case "tree":
		return fakeTree(intArg(args, 0)), true
	case "tree-host":
		return fakeTreeHost(), true
	}
	return 0, false
}

// fakeTree says "alive <pid>" on stdout, starts a tree of depth-1 below it
// at once (the first instant a child could escape a job it is not yet in),
// and holds.
func fakeTree(depth int) int {
	fmt.Printf("alive %d\n", os.Getpid())
	if depth > 0 {
		self, err := os.Executable()
		if err != nil {
			return 1
		}
		child := exec.Command(self, strconv.Itoa(depth-1))
		child.Env = append(withoutFakeEnv(os.Environ()), fakeEnv+"=tree")
		child.Stdout, child.Stderr = os.Stdout, os.Stderr
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	blockForever()
	return 0
}

// fakeTreeHost is a host that starts a tree of three and passes on what
// the tree says, until it is killed.
func fakeTreeHost() int {
	self, err := os.Executable()
	if err != nil {
		return 1
	}
	p, err := Start(Spec{Command: []string{self, "2"}, Env: append(withoutFakeEnv(os.Environ()), fakeEnv+"=tree")})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	_, _ = io.Copy(os.Stdout, p.Stdout())
	blockForever()
	return 0
}

// treeOf reads the n pids a tree says, and opens each process to wait for
// its end (held open, so a pid used again cannot mislead the wait).
func treeOf(t *testing.T, lines *bufio.Scanner, n int) []windows.Handle {
	t.Helper()
	var procs []windows.Handle
	for len(procs) < n {
		line := nextLine(t, lines)
		pid, err := strconv.Atoi(strings.TrimPrefix(line, "alive "))
		if err != nil {
			t.Fatalf("the tree said %q, want alive <pid>", line)
		}
		h, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
		if err != nil {
			t.Fatalf("process %d of the tree: %v", pid, err)
		}
		t.Cleanup(func() { windows.CloseHandle(h) })
		procs = append(procs, h)
	}
	return procs
}

// waitAllEnded waits for every process to end, failing past testDeadline.
func waitAllEnded(t *testing.T, procs []windows.Handle, after string) {
	t.Helper()
	for i, h := range procs {
		event, err := windows.WaitForSingleObject(h, uint32(testDeadline.Milliseconds()))
		if err != nil || event != windows.WAIT_OBJECT_0 {
			t.Errorf("process %d of the tree (depth %d) still runs %v after %s (%d, %v)", processID(h), i, testDeadline, after, event, err)
		}
	}
}

func processID(h windows.Handle) uint32 {
	pid, _ := windows.GetProcessId(h)
	return pid
}

// A program's children and grandchildren, started in its first instant,
// are in its job: stopping the program ends them all.
func TestJobStopEndsTheWholeTree(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := start(t, Spec{Dir: t.TempDir(), Command: []string{self, "2"}, Env: fakeEnvVars(t, "tree")})
	procs := treeOf(t, stdoutLines(t, p), 3)
	for i, h := range procs {
		if event, _ := windows.WaitForSingleObject(h, 0); event != uint32(windows.WAIT_TIMEOUT) {
			t.Fatalf("process %d of the tree (depth %d) ended before the stop", processID(h), i)
		}
	}
	stop(t, p, context.Background(), ignoredGrace)
	waitAllEnded(t, procs, "the stop")
}

// A host killed outright (TerminateProcess, no code of its own runs) takes
// its programs' trees with it: its handle of each job closes with it, and
// the job kills what it holds.
func TestJobHostKilledEndsTheWholeTree(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	host := exec.Command(self)
	host.Env = append(withoutFakeEnv(os.Environ()), fakeEnv+"=tree-host", quickExit)
	out, err := host.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	host.Stderr = os.Stderr
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = host.Process.Kill(); _ = host.Wait() })
	procs := treeOf(t, linesOf(t, out.(*os.File)), 3)
	if err := host.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	waitAllEnded(t, procs, "the host was killed")
}
