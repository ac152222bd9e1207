package conformance

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/escouade-dev/escouade-plugin/host/process"
	"github.com/escouade-dev/escouade-plugin/manifest"
)

// Transport starts the program of a plugin for the bench. Process is the
// only one today; run.js and run.wasm plug in here when their transports
// land.
type Transport interface {
	Start(ctx context.Context, spec StartSpec) (Program, error)
}

// StartSpec is what a transport needs to start a program.
type StartSpec struct {
	Manifest *manifest.Manifest
	// Env is the full environment of the program, ESCOUADE_* included.
	Env []string
	// Stderr receives each line the program writes on stderr.
	Stderr func(line string)
}

// Program is a running plugin program as the bench sees it: the two ends of
// its wire, its end, its memory, and a stop that takes all it started with it.
type Program interface {
	Stdin() io.WriteCloser
	Stdout() io.ReadCloser
	// Done is closed once the program has exited.
	Done() <-chan struct{}
	// Memory is the resident bytes of the program and all it started; once
	// the program exited, of what it left running.
	Memory() (uint64, error)
	// Stop stops the program and everything it started, each grace
	// before escalating, and returns once they are gone.
	Stop(ctx context.Context, grace time.Duration)
}

// errNoTransport reports a program kind this bench cannot run yet.
var errNoTransport = errors.New("this bench cannot run it yet: its transport has not landed")

// transportFor returns the transport of the manifest's run.
func transportFor(m *manifest.Manifest) (Transport, error) {
	switch kind := m.Run.Kind(); kind {
	case manifest.RunProcess:
		return Process{}, nil
	default:
		return nil, fmt.Errorf("run.%s: %w", kind, errNoTransport)
	}
}

// Process runs run.command as a process in its own process group, through
// package host/process, as the host does.
type Process struct{}

// Start starts run.command in the plugin folder.
func (Process) Start(_ context.Context, spec StartSpec) (Program, error) {
	p, err := process.Start(process.Spec{
		Dir:     spec.Manifest.Dir,
		Command: spec.Manifest.Run.Command,
		Env:     spec.Env,
		Stderr:  spec.Stderr,
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}
