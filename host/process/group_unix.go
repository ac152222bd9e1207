//go:build unix

package process

import (
	"errors"
	"os"
	"sync"
	"syscall"
)

// softStop is true where the group can be asked to terminate before it is
// killed.
const softStop = true

// group is the process group the program leads.
type group struct {
	pgid int

	mu   sync.Mutex
	gone bool // the group was seen empty: its id may be reused, never signal it again
}

// sysProcAttr makes the program lead a new process group, so that signals
// to the group reach all it starts and none of the host's own.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

func newGroup(leader *os.Process) (*group, error) {
	return &group{pgid: leader.Pid}, nil
}

// terminate sends SIGTERM to every process of the group.
func (g *group) terminate() { g.signal(syscall.SIGTERM) }

// kill sends SIGKILL to every process of the group.
func (g *group) kill() { g.signal(syscall.SIGKILL) }

func (g *group) signal(sig syscall.Signal) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.gone {
		return
	}
	if err := syscall.Kill(-g.pgid, sig); errors.Is(err, syscall.ESRCH) {
		g.gone = true
	}
}

// release frees what the group holds: nothing on Unix.
func (g *group) release() {}

// exitOf reads how the leader ended.
func (g *group) exitOf(state *os.ProcessState) Exit {
	if status, ok := state.Sys().(syscall.WaitStatus); ok && status.Signaled() {
		return Exit{Code: signalledCode, Signal: status.Signal().String()}
	}
	return Exit{Code: state.ExitCode()}
}

// memory sums the resident bytes of the leader (while it runs), of every
// member of its group and of all their descendants.
func (g *group) memory(leaderAlive bool) (uint64, error) {
	procs, err := listProcesses()
	if err != nil {
		return 0, err
	}
	var roots []int
	if leaderAlive {
		roots = append(roots, g.pgid)
	}
	return treeRSS(procs, roots, g.pgid), nil
}
