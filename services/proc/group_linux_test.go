package procsvc

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/kit/proto"
)

// TestTimeLimitKillsTheGroup: at the time limit the program and the
// child it started are both killed.
func TestTimeLimitKillsTheGroup(t *testing.T) {
	f := newFixture(t)
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	done := make(chan error, 1)
	go func() {
		_, err := f.run(t, proto.ProcRunParams{Program: "fake", Args: []string{"hang", pidFile}})
		done <- err
	}()
	tm := <-f.clock.created
	child := waitForPid(t, pidFile)
	tm.fire()
	if err := <-done; refusalOf(err).Code != -32004 {
		t.Fatalf("got %v, want -32004", err)
	}
	waitUntil(t, "the child to be killed with its group", func() bool { return dead(child) })
}

// waitForPid waits for the fake program to write its child's pid.
func waitForPid(t *testing.T, path string) int {
	t.Helper()
	var pid int
	waitUntil(t, "the child's pid", func() bool {
		data, err := os.ReadFile(path)
		pid, _ = strconv.Atoi(string(data))
		return err == nil && pid > 0
	})
	return pid
}

// dead reports a process gone or a zombie nobody reaped yet.
func dead(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) > 0 && (fields[0] == "Z" || fields[0] == "X")
}

// waitUntil polls cond: it waits for an event of another process, which
// nothing can notify; the bound is only there to end a broken test.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
