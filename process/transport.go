package process

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/protocol"
	"github.com/escouade-dev/escouade-plugin/transport"
	"github.com/escouade-dev/escouade-plugin/vocab"
)

// Transport starts run.command programs as processes: the process side of
// the host's transport seam. Its programs share its Launcher (one read of
// the process table for all of them); the zero Transport gives each
// program a launcher of its own. Close has nothing to release; its
// programs are stopped by the host first.
type Transport struct {
	// Grace is each step of stopping a program (stdin closed, then SIGTERM,
	// then SIGKILL); default 500 ms. A Stop after shutdown
	// (transport.StopOptions.AlreadyAsked) has one step: SIGTERM at once,
	// then SIGKILL.
	Grace time.Duration
	// Launcher starts its programs; nil gives each its own.
	Launcher *Launcher
	// passEnv names more variables its programs get (Passing); a pointer
	// keeps Transport comparable, as a value in an interface must be.
	passEnv *[]string
}

// Passing is t whose programs also get the variables names of the app's
// environment, beyond EnvironmentNames ("*" at the end of a name is a
// prefix). The default passes none; an app that passes more shows them at
// install too.
func (t Transport) Passing(names ...string) Transport {
	names = slices.Clone(names)
	t.passEnv = &names
	return t
}

// NewTransport is the transport of a host: its programs share one
// launcher, and each step of their stop takes grace.
func NewTransport(grace time.Duration) Transport {
	return Transport{Grace: grace, Launcher: NewLauncher()}
}

// DefaultGrace is Transport.Grace when it is zero.
const DefaultGrace = protocol.StopGrace

// Launch starts run.command in the plugin folder. Cancelling ctx kills the
// program and its group.
func (t Transport) Launch(ctx context.Context, spec transport.LaunchSpec) (transport.Program, error) {
	if manifest.RunKind(spec.Kind) != manifest.RunProcess {
		return nil, fmt.Errorf("%s: run.%s is not a process", filepath.Join(spec.Dir, manifest.FileName), spec.Kind)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l := t.Launcher
	if l == nil {
		l = NewLauncher()
	}
	p, err := l.Start(Spec{Dir: spec.Dir, Command: spec.Command, Env: t.environ(spec.Env), Stderr: spec.Stderr})
	if err != nil {
		return nil, err
	}
	prog := &program{Process: p, grace: t.grace()}
	context.AfterFunc(ctx, func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // no graces: the instance's life is over
		prog.Stop(ctx, transport.StopOptions{})
	})
	return prog, nil
}

// hostNames are the variables the host sets for a plugin
// (docs/protocol.md#2-starting-the-program).
var hostNames = []string{vocab.EnvPluginID, vocab.EnvPluginAPI, vocab.EnvVersion, vocab.EnvLang}

// environ is what a program gets of env, the app's environment with the
// host's variables (nil: the host's own): Environ of it, the host's
// variables and those it was told to pass.
func (t Transport) environ(env []string) []string {
	if env == nil {
		env = os.Environ()
	}
	more := hostNames
	if t.passEnv != nil {
		more = slices.Concat(hostNames, *t.passEnv)
	}
	return Environ(env, more...)
}

// Close releases nothing: a process transport holds no shared state.
func (Transport) Close(context.Context) error { return nil }

func (t Transport) grace() time.Duration {
	if t.Grace > 0 {
		return t.Grace
	}
	return DefaultGrace
}

// program is a Process as the seam sees it.
type program struct {
	*Process
	grace time.Duration
	// stopping is set once the host's Stop began: a signal that ends the
	// process from then on is the host's.
	stopping atomic.Bool
}

// ID names the process: "pid 4242". Its pid itself the host reads from
// PID (Process's), which only programs the system runs have.
func (p *program) ID() string { return "pid " + strconv.Itoa(p.PID()) }

// Exit is how the process ended, in the seam's words; the zero Exit
// (Running) before.
func (p *program) Exit() transport.Exit {
	select {
	case <-p.exited:
		return p.Process.Exit().neutral(p.stopping.Load())
	default:
		return transport.Exit{}
	}
}

// Stop stops the program and all it started (stdin, TERM, KILL, each after
// the grace, cut short by ctx; TERM at once when the program was already
// asked to end), returning once they are gone.
func (p *program) Stop(ctx context.Context, opts transport.StopOptions) error {
	p.stopping.Store(true)
	if opts.AlreadyAsked {
		p.Process.StopAlreadyAsked(ctx, p.grace)
		return nil
	}
	p.Process.Stop(ctx, p.grace)
	return nil
}

// neutral is e in the seam's words: a signal ended it from outside, the
// host's own SIGTERM (asked) or SIGKILL (forced) once it was stopping,
// anyone's else; the signal's name stays as the seam's Detail, which the
// journal's crash entry says ("crashed: signal killed").
func (e Exit) neutral(stopping bool) transport.Exit {
	if e.Signal == "" {
		return transport.Exit{Kind: transport.Exited, Code: e.Code}
	}
	by := transport.ByOther
	switch {
	case stopping && e.Signal == killedSignal:
		by = transport.ByHostForced
	case stopping:
		by = transport.ByHostAsked
	}
	return transport.Exit{Kind: transport.Ended, By: by, Detail: e.String()}
}
