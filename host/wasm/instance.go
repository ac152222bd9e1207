package wasm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/escouade-dev/escouade-plugin/host/wasm/engine"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// moduleInstance is an instantiated module (engine.Module).
type moduleInstance = engine.Module

// instance is one running module: a transport.Program. Its goroutine (run)
// owns the wazero module; the other methods are safe for concurrent use.
type instance struct {
	t     *Transport
	mod   *module
	guest guest
	spec  transport.LaunchSpec
	id    string
	in    *stdin
	out   *output
	errs  *lineWriter
	kept  *transport.LastLines
	clock *clock

	// mapLine rewrites a stderr line before anything reads it (the JS
	// engine's stack positions in the plugin's sources); nil if none.
	mapLine func(string) string

	// ctx is the context of every call into the module: cancelling it
	// stops the guest at its next check (WithCloseOnContextDone) and
	// wakes it from a sleep.
	ctx    context.Context
	cancel context.CancelFunc

	// holds reports whether the instance holds a decision an agent waits
	// for: set by Transport.Decisions once the host has the program, nil
	// before (it holds none while it starts).
	holds atomic.Pointer[func() bool]

	mu     sync.Mutex
	reason transport.Exit // why the host ended it; the first cause wins
	panic  string         // the last "panic: …" line of its stderr

	done chan struct{}
	exit transport.Exit // set before done is closed

	// stackLeft is the budget of the instance's native stack (stack.go),
	// set by run once instantiated, read by run's exitOf.
	stackLeft engine.Global

	// bytecode is the cache file of the bytecode mounted in /bundle, ""
	// if none: dropped if the start fails (dropBytecode).
	bytecode string
}

var _ transport.Program = (*instance)(nil)

func newInstance(t *Transport, mod *module, g guest, spec transport.LaunchSpec, mapLine func(string) string, n int64) *instance {
	i := &instance{t: t, mod: mod, guest: g, spec: spec, id: fmt.Sprintf("instance %d", n), done: make(chan struct{})}
	i.kept = transport.NewLastLines(t.o.StderrKeep)
	i.mapLine = mapLine
	i.clock = newClock(i.turnLimit, i.turnTooLong)
	i.in = newStdin(mod.shape == reactor, t.o.StdinBuffer, i.clock)
	i.out = newOutput(t.o.StdoutBuffer, t.o.StdoutLine, i.lineTooLong)
	i.errs = &lineWriter{max: t.o.StderrLine, emit: i.stderrLine}
	i.ctx, i.cancel = context.WithCancel(context.Background())
	i.ctx = withStdin(i.ctx, i.in)
	return i
}

func (i *instance) Stdin() io.WriteCloser { return i.in }
func (i *instance) Stdout() io.ReadCloser { return i.out }
func (i *instance) ID() string            { return i.id }
func (i *instance) Done() <-chan struct{} { return i.done }
func (i *instance) LastStderr() []string  { return i.kept.Snapshot() }
func (i *instance) String() string        { return i.id }

// Exit says how the instance ended; the zero Exit while it runs.
func (i *instance) Exit() transport.Exit {
	select {
	case <-i.done:
		return i.exit
	default:
		return transport.Exit{}
	}
}

// Stop closes stdin, which gives a reactor a last turn and a command an
// EOF to exit on, and waits for the instance to end; once ctx is done it
// closes the module, whatever it is doing, and waits for that. On a
// runtime without termination checks (the JS engine's, when asked) a
// running call cannot be stopped: Stop then returns ctx's error at once,
// and Done waits for the engine to return. A module already asked to end
// still gets its last turn: closing stdin is how it hears the end, and it
// costs no grace of its own (ctx bounds it).
func (i *instance) Stop(ctx context.Context, _ transport.StopOptions) error {
	_ = i.in.Close()
	select {
	case <-i.done:
		return nil
	case <-ctx.Done():
	}
	i.kill()
	if !i.mod.rt.checks {
		select {
		case <-i.done:
			return nil
		default:
			return ctx.Err()
		}
	}
	<-i.done
	return nil
}

// killed is how an instance the host ended from outside ends: forced by
// the host, whatever it was doing.
var killed = transport.Exit{Kind: transport.Ended, By: transport.ByHostForced}

func (i *instance) kill() { i.end(killed) }

// end ends the instance for why, unless something else did first.
func (i *instance) end(why transport.Exit) {
	i.mu.Lock()
	if i.reason.Kind == transport.Running {
		i.reason = why
	}
	i.mu.Unlock()
	i.cancel()
	i.in.abort()
	i.out.end()
}

func (i *instance) turnTooLong(limit time.Duration) {
	i.end(transport.Exit{Kind: transport.TurnTooLong, Limit: limit})
}

// lineTooLong ends an instance that wrote a stdout line past the
// protocol's limit without ending it (docs/protocol.md#3-messages): no reader would take
// it, and holding it waiting for its newline would hold the memory.
func (i *instance) lineTooLong() {
	i.end(transport.Exit{Kind: transport.Trapped, Detail: fmt.Sprintf(
		"it wrote a stdout line past %s, the protocol's limit of a line, without a newline", lineSize(i.t.o.StdoutLine))})
}

// lineSize writes a line limit as the protocol states it: "8 MiB".
func lineSize(n int) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

func (i *instance) outOfMemory(uint64) {
	i.end(transport.Exit{Kind: transport.OutOfMemory, Memory: i.t.o.Memory})
}

// turnLimit is the limit of a turn starting now (docs/protocol.md#limits).
func (i *instance) turnLimit() time.Duration {
	if holds := i.holds.Load(); holds != nil && (*holds)() {
		return i.t.o.DecisionTurnLimit
	}
	return i.t.o.TurnLimit
}

func (i *instance) stderrLine(line string) {
	if i.mapLine != nil {
		line = i.mapLine(line)
	}
	i.kept.Add(line)
	if isPanicLine(line) {
		i.mu.Lock()
		i.panic = line
		i.mu.Unlock()
	}
	if i.spec.Stderr != nil {
		i.spec.Stderr(line)
	}
}

// isPanicLine reports whether a stderr line says the guest's runtime gave
// up: a Go panic or fatal error, a Rust panic.
func isPanicLine(line string) bool {
	return strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, "fatal error: ") ||
		strings.HasPrefix(line, "thread '") && strings.Contains(line, "' panicked at ")
}

// run is the instance's goroutine, from instantiation to the end.
func (i *instance) run(life context.Context, cfg engine.ModuleConfig, started chan<- error) {
	defer close(i.done)
	defer i.t.untrack(i)
	defer i.cancel()
	stopWatching := context.AfterFunc(life, i.kill)
	defer stopWatching()
	mod, err := i.instantiate(cfg)
	started <- err
	if err != nil {
		i.exit = transport.Exit{Kind: transport.Trapped, Detail: err.Error()}
		i.finish()
		return
	}
	i.stackLeft = mod.ExportedGlobal(stackExport)
	var exit transport.Exit
	if i.mod.shape == reactor {
		exit = i.serveReactor(mod)
	} else {
		exit = i.exitOf(i.call(mod.ExportedFunction(startExport), nil))
	}
	i.clock.pause()
	_ = mod.Close(context.Background())
	i.exit = exit
	i.finish()
}

// finish hands on what is left of stderr and ends stdin and stdout.
func (i *instance) finish() {
	i.errs.flush()
	i.in.abort()
	i.out.end()
}

// serveReactor starts the instance, then runs a turn per batch of lines,
// and a last turn once stdin is closed.
func (i *instance) serveReactor(mod moduleInstance) transport.Exit {
	t := turn{fn: mod.ExportedFunction(turnExport), budget: mod.ExportedFunction(budgetExport), stack: make([]uint64, 1)}
	if err := i.start(mod, t); err != nil {
		exit := i.exitOf(err)
		i.dropBytecode(exit)
		return exit
	}
	for {
		run, last := i.in.next()
		if !run {
			return i.exitOf(nil)
		}
		if err := i.turn(t, i.clock.limitFor()); err != nil || last {
			return i.exitOf(err)
		}
	}
}

// start is a reactor's start, before any input: _initialize, and for the
// JS engine a first turn with no input, in which it starts its runtime
// and runs the bundle's top level (about 100 ms of CPU, where a later
// turn takes 1 or 2 ms). It is not a turn on behalf of input
// (docs/protocol.md#turns): it is timed by a clock of its own,
// StartLimit, whose default is the turn's 2 s.
func (i *instance) start(mod moduleInstance, t turn) error {
	if init := mod.ExportedFunction(initializeExport); init != nil {
		i.clock.beginWith(i.t.o.StartLimit)
		err := init.CallWithStack(i.ctx, nil)
		i.clock.pause()
		if err != nil {
			return err
		}
	}
	if !i.guest.startsWithTurn() {
		return nil
	}
	return i.turn(t, i.t.o.StartLimit)
}

// turn is a reactor's exports, with a stack reused by every call.
type turn struct {
	fn, budget engine.Function
	stack      []uint64
}

// turn tells the module its budget, the turn's limit, then runs
// escouade-turn.
func (i *instance) turn(t turn, limit time.Duration) error {
	i.clock.beginWith(limit)
	defer i.clock.pause()
	if t.budget != nil {
		t.stack[0] = uint64(limit.Milliseconds())
		if err := t.budget.CallWithStack(i.ctx, t.stack); err != nil {
			return err
		}
	}
	return t.fn.CallWithStack(i.ctx, t.stack)
}

// call runs fn in a turn; a command's stdin reads end and start turns
// inside it.
func (i *instance) call(fn engine.Function, stack []uint64) error {
	i.clock.begin()
	defer i.clock.pause()
	return fn.CallWithStack(i.ctx, stack)
}

// exitOf says how the instance ended, err being what its last call
// returned: the host's reason first (a turn past its time, the memory
// limit, a kill), then proc_exit, a guest panic, a trap.
func (i *instance) exitOf(err error) transport.Exit {
	i.errs.flush()
	i.mu.Lock()
	reason, panicLine := i.reason, i.panic
	i.mu.Unlock()
	if reason.Kind != transport.Running {
		return reason
	}
	var exit *engine.ExitError
	switch {
	case err == nil:
		return transport.Exit{Kind: transport.Exited}
	case engine.ContextEnded(err):
		// Only the host ends the context of a call, and it says why
		// first; a call ended without a reason is the turn clock's.
		return transport.Exit{Kind: transport.TurnTooLong, Limit: i.clock.lastLimit()}
	case errors.As(err, &exit) && exit.ExitCode() == 0:
		return transport.Exit{Kind: transport.Exited}
	case panicLine == "fatal error: out of memory":
		return transport.Exit{Kind: transport.OutOfMemory, Memory: i.t.o.Memory}
	case panicLine != "":
		return transport.Exit{Kind: transport.Trapped, Detail: panicLine}
	case errors.As(err, &exit) && i.guest.exitMapper() != nil:
		return i.guest.exitMapper().ExitOf(exit.ExitCode(), i.kept.Snapshot(), i.clock.lastLimit())
	case errors.As(err, &exit):
		return transport.Exit{Kind: transport.Exited, Code: int(exit.ExitCode())}
	}
	if i.stackSpent() {
		return transport.Exit{Kind: transport.Trapped, Detail: stackOverflow}
	}
	return transport.Exit{Kind: transport.Trapped, Detail: firstLine(err.Error())}
}

// stackSpent says whether the instance's calls spent its stack's budget
// (stack.go): a trap that leaves the budget below zero is the budget's.
func (i *instance) stackSpent() bool {
	return i.stackLeft != nil && int32(i.stackLeft.Get()) < 0
}

// ExitMapper is implemented by a JS engine that ends its instance for
// reasons of its own with proc_exit codes of its own (an uncaught
// exception, its interrupt at the turn's budget, an allocation refused):
// it says what an exit code means, from the instance's last stderr lines
// and the limit of the turn it ended in.
type ExitMapper interface {
	ExitOf(code uint32, lastStderr []string, turnLimit time.Duration) transport.Exit
}
