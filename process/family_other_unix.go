//go:build unix && !linux

package process

import (
	"syscall"
	"time"
)

// sysProcAttr makes the program lead a new process group, so that signals
// to the group reach all it starts and none of the host's own.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// prepareStart adds nothing: without /proc, the environment of another
// process cannot be read, so there is no tag to give.
func prepareStart(env []string) ([]string, string) { return env, "" }

func startOnKeptThread(start func() error) error { return start() }

// startTimeOf is unknown without /proc.
func startTimeOf(int) uint64 { return 0 }

func (*table) tokenOf(procInfo) string { return "" }

// adopt does nothing: the host is no subreaper here, so it adopts nothing.
func (*table) adopt(_, _ *snapshot) {}

// reap does nothing: what the program leaves behind is adopted by init.
func reap([]procInfo, int) {}

// waiter is a pid that was signalled.
type waiter int

// signalProcs sends sig to each process of procs. Without pidfds a pid
// reused since the snapshot could be hit; ps is read right before.
func signalProcs(procs []procInfo, sig syscall.Signal) []waiter {
	var out []waiter
	for _, p := range procs {
		if syscall.Kill(p.PID, sig) == nil {
			out = append(out, waiter(p.PID))
		}
	}
	return out
}

// killRounds is 1: ps tells no zombie from a running process, so a second
// round could not tell whether the first one worked.
const killRounds = 1

// awaitExit returns at once: a killed process cannot outlive SIGKILL, and
// without pidfds waiting for its end would mean polling.
func awaitExit([]waiter, time.Duration) {}

func closeAll([]waiter) {}
