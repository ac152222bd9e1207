package process

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/escouade-dev/escouade-plugin/transport"
)

// Process is a running plugin program. Its methods are safe for concurrent
// use. Stop releases everything it holds but Stdout, which the reader of
// the wire closes once it has read what it wanted.
type Process struct {
	cmd    *exec.Cmd
	group  *group
	stdin  *os.File
	stdout *os.File
	stderr *os.File // read end; closed by the stderr reader or by Stop
	kept   *transport.LastLines
	drain  time.Duration
	timer  func(time.Duration) (<-chan time.Time, func() bool) // nil: time.NewTimer
	token  string                                              // the value of TokenEnv it was given; "" for none

	exited     chan struct{} // closed once the leader is reaped and exit is set
	stderrDone chan struct{} // closed when the stderr reader returned
	done       chan struct{} // closed when the leader exited and stderr drained
	exit       Exit

	stdinOnce  sync.Once
	stderrOnce sync.Once
}

// Start starts the program spec describes with a launcher of its own (see
// Launcher). The error names the program when it does not exist
// (ErrNotFound).
func Start(spec Spec) (*Process, error) { return NewLauncher().Start(spec) }

// Launcher starts programs and keeps, for them alone, what it learns of
// the system's process table: one read of the table serves all its
// programs, and what it adopted and the tokens it read are its own. Two
// hosts in one process, each with its launcher, share none of it. A
// Launcher is safe for concurrent use.
type Launcher struct{ table *table }

// NewLauncher makes a launcher with an empty table.
func NewLauncher() *Launcher { return &Launcher{table: newTable()} }

// Start starts the program spec describes. The error names the program when
// it does not exist (ErrNotFound).
func (l *Launcher) Start(spec Spec) (*Process, error) {
	path, err := resolveProgram(spec.Dir, spec.Command)
	if err != nil {
		return nil, err
	}
	pipes, err := openPipes()
	if err != nil {
		return nil, err
	}
	env, token := prepareStart(spec.Env)
	cmd := &exec.Cmd{
		Path:        path,
		Args:        spec.Command,
		Dir:         spec.Dir,
		Env:         env,
		Stdin:       pipes.childStdin,
		Stdout:      pipes.childStdout,
		Stderr:      pipes.childStderr,
		ExtraFiles:  spec.extraFiles,
		SysProcAttr: sysProcAttr(),
	}
	err = startOnKeptThread(cmd.Start)
	pipes.closeChildEnds()
	if err != nil {
		pipes.closeHostEnds()
		forgetToken(token)
		return nil, fmt.Errorf("start program %q: %w", spec.Command[0], err)
	}
	p := newProcess(cmd, pipes, spec)
	p.token = token
	if p.group, err = newGroup(l.table, cmd.Process, token, p.leaderExited); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		pipes.closeHostEnds()
		return nil, fmt.Errorf("start program %q: %w", spec.Command[0], err)
	}
	go p.readStderr(spec.Stderr)
	go p.wait()
	return p, nil
}

func newProcess(cmd *exec.Cmd, pipes *pipes, spec Spec) *Process {
	return &Process{
		cmd:        cmd,
		stdin:      pipes.hostStdin,
		stdout:     pipes.hostStdout,
		stderr:     pipes.hostStderr,
		kept:       transport.NewLastLines(spec.stderrKeep()),
		drain:      spec.stderrDrain(),
		timer:      spec.timer,
		exited:     make(chan struct{}),
		stderrDone: make(chan struct{}),
		done:       make(chan struct{}),
	}
}

// PID is the process id of the program, the leader of its group.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Stdin is the program's stdin (an *os.File pipe). Stop closes it.
func (p *Process) Stdin() io.WriteCloser { return p.stdin }

// Stdout is the program's stdout (an *os.File pipe). It ends when the
// program and every process holding it have exited; the caller closes it.
func (p *Process) Stdout() io.ReadCloser { return p.stdout }

// Done is closed when the program has exited and its stderr is drained, or
// the drain grace (Spec.StderrDrain) ran out because a child keeps stderr
// open.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exit says how the program ended; the zero Exit before it has.
func (p *Process) Exit() Exit {
	select {
	case <-p.exited:
		return p.exit
	default:
		return Exit{}
	}
}

// LastStderr returns the last Spec.StderrKeep stderr lines, oldest first:
// at Done, those of the crash entry.
func (p *Process) LastStderr() []string { return p.kept.Snapshot() }

// Memory returns the resident bytes of the program and of every process it
// started, directly or not, those that left its group included (Linux).
// Once the program has exited it counts what it left behind; after Stop, 0.
// On Unix the process table is read once for all the Processes that ask
// within a second (snapshotAge), so it may be that old, but never older
// than the program, nor, once it exited, than its exit.
func (p *Process) Memory() (uint64, error) { return p.group.memory() }

func (p *Process) leaderExited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// readStderr runs on its own goroutine until stderr ends or Stop closes it.
func (p *Process) readStderr(deliver func(string)) {
	defer close(p.stderrDone)
	defer p.closeStderr()
	readStderr(p.stderr, p.kept, deliver)
}

// wait runs on its own goroutine until the leader exited and stderr
// drained, at most Spec.StderrDrain after the exit.
func (p *Process) wait() {
	defer close(p.done)
	_ = p.cmd.Wait() // an *ExitError only restates ProcessState
	p.exit = p.exitOf(p.cmd.ProcessState)
	p.group.noteExit()
	close(p.exited)
	drained := time.NewTimer(p.drain)
	defer drained.Stop()
	select {
	case <-p.stderrDone:
	case <-drained.C:
	}
}

func (p *Process) exitOf(state *os.ProcessState) Exit {
	if state == nil { // Wait failed before the program could be reaped
		return Exit{Code: signalledCode}
	}
	return p.group.exitOf(state)
}

func (p *Process) closeStdin() {
	p.stdinOnce.Do(func() { _ = p.stdin.Close() })
}

func (p *Process) closeStderr() {
	p.stderrOnce.Do(func() { _ = p.stderr.Close() })
}
