package process

import (
	"context"
	"time"
)

// Stop stops the program and everything it started, and frees what the
// Process holds (but Stdout). It closes stdin, waits grace for the program
// to exit, asks everything it started to terminate (SIGTERM; not on
// Windows), waits grace again, then kills it all. A cancelled ctx cuts the
// graces short and goes straight to the kill. Stop returns once the
// program and all it started are gone (on Linux, once those the host
// adopted are reaped); it always kills what is left, even when the program
// had exited by itself. Calling it again, or after Done, is safe.
func (p *Process) Stop(ctx context.Context, grace time.Duration) {
	p.stop(ctx, grace, true)
}

// StopAlreadyAsked is Stop for a program already asked to end (it was
// sent shutdown and had its delay to exit): its first grace is skipped,
// SIGTERM goes with the closing of stdin.
func (p *Process) StopAlreadyAsked(ctx context.Context, grace time.Duration) {
	p.stop(ctx, grace, false)
}

// stop closes stdin, waits grace for the program to exit if gentle, then
// terminates and kills it as Stop says.
func (p *Process) stop(ctx context.Context, grace time.Duration, gentle bool) {
	p.closeStdin()
	exited := false
	if gentle {
		exited = p.waitExit(ctx, grace)
	}
	if !exited && softStop && ctx.Err() == nil {
		// The grace counts from the SIGTERM to the group, which goes first;
		// the search for those that left it must not lengthen it.
		fired, stopTimer := p.newTimer(grace)
		p.group.terminate()
		p.waitFor(ctx, fired)
		stopTimer()
	}
	p.KillGroup()
	<-p.done
	p.finishStderr()
	p.group.release()
}

// KillGroup kills the program now with everything it started, those that
// left its group included (Linux), and returns once they are gone. It is
// safe after the program exited and idempotent.
func (p *Process) KillGroup() { p.group.kill() }

// waitExit reports whether the leader exited within d.
func (p *Process) waitExit(ctx context.Context, d time.Duration) bool {
	if ctx.Err() != nil {
		return p.leaderExited()
	}
	fired, stop := p.newTimer(d)
	defer stop()
	return p.waitFor(ctx, fired)
}

// waitFor reports whether the leader exited before fired or the end of ctx.
func (p *Process) waitFor(ctx context.Context, fired <-chan time.Time) bool {
	select {
	case <-p.exited:
		return true
	case <-fired:
	case <-ctx.Done():
	}
	return false
}

func (p *Process) newTimer(d time.Duration) (<-chan time.Time, func() bool) {
	if p.timer != nil {
		return p.timer(d)
	}
	t := time.NewTimer(d)
	return t.C, t.Stop
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
