package process

import (
	"fmt"
	"os"
	"os/exec"
	"sync/atomic"
)

// Family is a program started for something other than the plugin
// protocol (a module's proc/run) with everything it starts, tracked the
// way a plugin's program is: its own process group and, on Linux, the
// instance token in its environment, the host its subreaper and SIGKILL
// when the host dies; a Job object on Windows. Kill reaches every
// descendant, those that left the group (setsid, a double fork) included.
// ExampleStartFamily shows its use: the caller waits for its exec.Cmd,
// then calls Exited, reads the code, kills what it left running and
// releases it.
type Family struct {
	group  *group
	exited atomic.Bool
}

// StartFamily starts cmd as the leader of a new family, with a launcher of
// its own: a family shares nothing with another. It sets cmd.SysProcAttr;
// cmd.Env is the whole environment (nil: the host's), to which TokenEnv is
// added on Linux. The caller waits for cmd as usual and then calls Exited.
func StartFamily(cmd *exec.Cmd) (*Family, error) { return NewLauncher().StartFamily(cmd) }

// StartFamily is the package's StartFamily on l's table.
func (l *Launcher) StartFamily(cmd *exec.Cmd) (*Family, error) {
	env, token := prepareStart(cmd.Env)
	cmd.Env = env
	cmd.SysProcAttr = sysProcAttr()
	if err := startOnKeptThread(cmd.Start); err != nil {
		forgetToken(token)
		return nil, err
	}
	f := &Family{}
	g, err := newGroup(l.table, cmd.Process, token, f.exited.Load)
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("start program %q: %w", cmd.Args[0], err)
	}
	f.group = g
	return f, nil
}

// Exited tells the family that cmd.Wait returned: the leader's pid may
// name another process from now on, so it is no longer signalled.
func (f *Family) Exited() {
	f.exited.Store(true)
	f.group.noteExit()
}

// Kill kills every process of the family, again while it starts new
// ones, and returns once they are gone (on Linux, once those the host
// adopted are reaped). It is safe to call at any time, more than once.
func (f *Family) Kill() { f.group.kill() }

// Release forgets the family once it was killed; on Windows it closes the
// job, which kills what is left in it.
func (f *Family) Release() { f.group.release() }

// ExitCode is how the leader ended, as a shell reports it: its exit code,
// or 128 + the number of the signal that ended it (137 for one a Windows
// job killed, as for a SIGKILL).
func (f *Family) ExitCode(state *os.ProcessState) int { return shellCode(state) }
