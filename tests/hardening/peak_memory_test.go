//go:build linux

package hardening

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
)

// commandPeak is the peak resident memory, in bytes, of an ended command
// this test binary started, or 0 when that peak is no more than the test
// binary's own. Linux keeps a process's peak across execve, and a child
// begins on its parent's memory (Go starts it with vfork), so the rusage
// of a command reads at least this binary's own peak (VmHWM), hundreds of
// MB under -race with many tests at once. A reading above that peak is the
// command's own; one at or below it says only that the command stayed
// under it, which the bounds asserted here (hundreds of MB against the
// GB an attack took) do not need to know more precisely.
func commandPeak(t *testing.T, cmd *exec.Cmd) int64 {
	t.Helper()
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	peak := ru.Maxrss << 10
	if self := selfPeak(t); peak <= self {
		t.Logf("the command's peak memory is at most this test binary's own, %d MB", self>>20)
		return 0
	}
	return peak
}

// selfPeak is this test binary's own peak resident memory (VmHWM), in
// bytes.
func selfPeak(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range bytes.Split(b, []byte("\n")) {
		if v, ok := bytes.CutPrefix(l, []byte("VmHWM:")); ok {
			kb, err := strconv.ParseInt(string(bytes.TrimSuffix(bytes.TrimSpace(v), []byte(" kB"))), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM %q: %v", v, err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/self/status")
	return 0
}
