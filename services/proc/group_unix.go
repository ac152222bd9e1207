//go:build unix

package procsvc

import (
	"errors"
	"os"
	"sync"
	"syscall"
)

// sysProcAttr makes the program lead a new process group, so that the
// kill reaches all it starts and none of the host's own.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// group is the process group the program leads.
type group struct {
	pgid int

	mu   sync.Mutex
	gone bool // seen empty: its id may be reused, never signal it again
}

func newGroup(leader *os.Process) (*group, error) {
	return &group{pgid: leader.Pid}, nil
}

// kill sends SIGKILL to every process of the group.
func (g *group) kill() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.gone {
		return
	}
	if err := syscall.Kill(-g.pgid, syscall.SIGKILL); errors.Is(err, syscall.ESRCH) {
		g.gone = true
	}
}

// release marks the group done: once the leader is reaped its id may be
// reused.
func (g *group) release() {
	g.mu.Lock()
	g.gone = true
	g.mu.Unlock()
}

// exitCode is the program's code; a signal gives 128 + its number.
func exitCode(state *os.ProcessState) int {
	if status, ok := state.Sys().(syscall.WaitStatus); ok && status.Signaled() {
		return 128 + int(status.Signal())
	}
	return state.ExitCode()
}
