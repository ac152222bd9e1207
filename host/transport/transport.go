// Package transport is the seam between the host's supervisor and the
// things that run a plugin's program: an OS process (package host/process)
// or a WebAssembly instance inside the host (package host/wasm). The
// supervisor speaks whole JSON-RPC lines over Stdin and Stdout and never
// touches what runs them; a transport knows nothing of the protocol.
//
// A Transport is owned by the host and closed with it: a WASM transport
// holds one wazero.Runtime and its compile cache for every plugin.
//
//	prog, err := t.Launch(ctx, transport.LaunchSpec{Manifest: m, Stderr: journalStderr})
//	...
//	<-prog.Done()
//	if errors.Is(prog.Exit(), transport.ErrTurnTooLong) { … }
//	journal.Write("crash", prog.Exit().Sentence())
//
// Compare go-plugin's runner.Runner (neutral about what it runs) and
// wazero's sys.ExitError (typed exits).
package transport

import (
	"context"
	"io"
	"time"

	"github.com/escouade-dev/escouade-plugin/manifest"
)

// Transport starts programs of one kind.
type Transport interface {
	// Launch starts the program spec describes. ctx is the instance's
	// life: cancelling it cancels a launch under way and ends the program
	// (as Stop does, without its graces).
	Launch(ctx context.Context, spec LaunchSpec) (Program, error)
	// Close releases what the transport holds for all its programs; the
	// host stops every program first.
	Close(ctx context.Context) error
}

// LaunchSpec is what a transport needs to start a program.
type LaunchSpec struct {
	Manifest *manifest.Manifest
	// Env is the full environment of a process, ESCOUADE_* included. A
	// module gets no environment (docs/protocol.md#loading-and-compiling).
	Env []string
	// Stderr receives each line the program writes on stderr.
	Stderr func(line string)
	// Journal receives lines a transport has to say about the program
	// itself (tag "wasm": a root JSON file left out, a compile under way).
	// Nil writes nothing.
	Journal func(tag, text string)
	// HoldsDecision reports whether a decision (a permissions/… call) is
	// pending on the program: a module's turn then has 500 ms instead of
	// 2 s (§8.3). Nil never holds one.
	HoldsDecision func() bool
}

// Program is one running instance of a plugin's program.
type Program interface {
	// Stdin takes whole lines; Stdout gives the program's lines.
	Stdin() io.WriteCloser
	Stdout() io.ReadCloser
	// ID names the instance for the journal: "pid 4242", "instance 3".
	ID() string
	// Done is closed once the program has ended.
	Done() <-chan struct{}
	// Exit says how it ended; valid after Done.
	Exit() Exit
	// LastStderr is its last lines of stderr, oldest first, for a crash
	// entry.
	LastStderr() []string
	// Stop ends it gracefully, then harder, and everything it started with
	// it; it returns once they are gone or ctx is done.
	Stop(ctx context.Context) error
}

// MemoryReader is implemented by programs whose memory the host polls
// against its limit (processes, 1 GB; a module has its own 64 MB limit
// enforced by its transport).
type MemoryReader interface {
	// Memory is the resident bytes of the program and all it started.
	Memory() (uint64, error)
}

// Limits a module transport enforces on each instance (docs/protocol.md#limits).
const (
	ModuleMemory      = 64 << 20
	TurnLimit         = 2 * time.Second
	DecisionTurnLimit = 500 * time.Millisecond
)

type askedKey struct{}

// Asked marks the context of a Stop whose program was already asked to end
// (it was sent shutdown and had its delay to answer and exit): the
// transport skips its own gentle step (closing stdin and waiting) and goes
// on to the next (SIGTERM for a process), so a host that closes is not
// slowed by two graces that mean the same thing.
func Asked(ctx context.Context) context.Context { return context.WithValue(ctx, askedKey{}, true) }

// WasAsked reports whether ctx is marked by Asked.
func WasAsked(ctx context.Context) bool { v, _ := ctx.Value(askedKey{}).(bool); return v }
