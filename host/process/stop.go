package process

import (
	"context"
	"time"
)

// Stop stops the program and everything it started, and frees what the
// Process holds (but Stdout). It closes stdin, waits grace for the program
// to exit, asks the whole group to terminate (SIGTERM; not on Windows),
// waits grace again, then kills the group. A cancelled ctx cuts the graces
// short and goes straight to the kill. Stop returns once the program is
// gone; it always kills what is left of the group, even when the program
// had exited by itself. Calling it again, or after Done, is safe.
func (p *Process) Stop(ctx context.Context, grace time.Duration) {
	p.closeStdin()
	if !p.waitExit(ctx, grace) && softStop {
		p.group.terminate()
		p.waitExit(ctx, grace)
	}
	p.KillGroup()
	<-p.done
	p.finishStderr()
	p.group.release()
}

// KillGroup kills the process group now, the program's children included.
// It is safe after the program exited and idempotent.
func (p *Process) KillGroup() { p.group.kill() }

// waitExit reports whether the leader exited within d.
func (p *Process) waitExit(ctx context.Context, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-p.exited:
		return true
	case <-timer.C:
	case <-ctx.Done():
	}
	return false
}

// finishStderr ends the stderr reader: the group is dead, so stderr ends
// soon; a process that escaped the group may still hold it, and then the
// host's end is closed after the drain grace.
func (p *Process) finishStderr() {
	timer := time.NewTimer(p.drain)
	defer timer.Stop()
	select {
	case <-p.stderrDone:
		return
	case <-timer.C:
	}
	p.closeStderr()
	<-p.stderrDone
}
