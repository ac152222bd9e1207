package host

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/escouade-dev/escouade-plugin/host/process"
	"github.com/escouade-dev/escouade-plugin/manifest"
)

// Program is one running instance of a plugin's program, whatever its
// transport: the lifecycle seam between the supervisor and the wire. The
// supervisor speaks JSON-RPC over Stdin/Stdout and never touches the OS.
type Program interface {
	Stdin() io.WriteCloser
	Stdout() io.ReadCloser
	// Describe names the instance for the journal ("pid 4242").
	Describe() string
	PID() int
	// Done is closed when the program has ended.
	Done() <-chan struct{}
	// ExitText describes how it ended ("exit code 3", "signal killed"),
	// valid after Done.
	ExitText() string
	// LastStderr is its last lines of stderr, for a crash entry.
	LastStderr() []string
	// Stop ends it gracefully (stdin closed, then harder), returning when
	// it is gone; KillGroup ends what it started too.
	Stop(ctx context.Context, grace time.Duration)
	KillGroup()
	// Memory is the resident size of the program and all it started.
	Memory() (uint64, error)
}

// LaunchSpec is what a Launcher needs to start a program.
type LaunchSpec struct {
	Manifest *manifest.Manifest
	Env      []string          // the full environment of a process
	Stderr   func(line string) // each stderr line, for the journal
}

// Launcher starts a plugin's program.
type Launcher func(ctx context.Context, spec LaunchSpec) (Program, error)

// LaunchProcess starts run.command as a process in the plugin folder.
func LaunchProcess(_ context.Context, spec LaunchSpec) (Program, error) {
	m := spec.Manifest
	if m.Run.Kind() != manifest.RunProcess {
		return nil, fmt.Errorf("%s: run.%s programs are not supported by this host yet", filepath.Join(m.Dir, manifest.FileName), m.Run.Kind())
	}
	p, err := process.Start(process.Spec{
		Dir:     m.Dir,
		Command: m.Run.Command,
		Env:     spec.Env,
		Stderr:  spec.Stderr,
	})
	if err != nil {
		return nil, err
	}
	return processProgram{p}, nil
}

type processProgram struct{ *process.Process }

func (p processProgram) Describe() string { return fmt.Sprintf("pid %d", p.PID()) }
func (p processProgram) ExitText() string { return p.Exit().String() }
