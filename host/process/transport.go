package process

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/escouade-dev/escouade-plugin/host/transport"
	"github.com/escouade-dev/escouade-plugin/manifest"
)

// Transport starts run.command programs as processes: the process side of
// the host's transport seam. It holds nothing shared, so Close has nothing
// to release; its programs are stopped by the host first.
type Transport struct {
	// Grace is each step of stopping a program (stdin closed, then SIGTERM,
	// then SIGKILL); default 500 ms. A Stop after shutdown
	// (transport.Asked) has one step: SIGTERM at once, then SIGKILL.
	Grace time.Duration
}

// DefaultGrace is Transport.Grace when it is zero.
const DefaultGrace = 500 * time.Millisecond

// Launch starts run.command in the plugin folder. Cancelling ctx kills the
// program and its group.
func (t Transport) Launch(ctx context.Context, spec transport.LaunchSpec) (transport.Program, error) {
	m := spec.Manifest
	if m.Run.Kind() != manifest.RunProcess {
		return nil, fmt.Errorf("%s: run.%s is not a process", filepath.Join(m.Dir, manifest.FileName), m.Run.Kind())
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p, err := Start(Spec{Dir: m.Dir, Command: m.Run.Command, Env: spec.Env, Stderr: spec.Stderr})
	if err != nil {
		return nil, err
	}
	prog := &program{Process: p, grace: t.grace()}
	context.AfterFunc(ctx, func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // no graces: the instance's life is over
		prog.Stop(ctx)
	})
	return prog, nil
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
}

// ID names the process for the journal: "pid 4242".
func (p *program) ID() string { return "pid " + strconv.Itoa(p.PID()) }

// Exit is how the process ended, typed; the zero Exit (Running) before.
func (p *program) Exit() transport.Exit {
	select {
	case <-p.exited:
		return p.Process.Exit().typed()
	default:
		return transport.Exit{}
	}
}

// Stop stops the program and all it started (stdin, TERM, KILL, each after
// the grace, cut short by ctx; TERM at once when ctx is marked by
// transport.Asked), returning once they are gone.
func (p *program) Stop(ctx context.Context) error {
	p.Process.Stop(ctx, p.grace)
	return nil
}

// typed is e as the seam's Exit.
func (e Exit) typed() transport.Exit {
	if e.Signal != "" {
		return transport.Exit{Kind: transport.Signalled, Code: e.Code, Signal: e.Signal}
	}
	return transport.Exit{Kind: transport.Exited, Code: e.Code}
}
