// Package transport is the seam between the host's supervisor and the
// things that run a plugin's program: a program the operating system runs,
// or a WebAssembly instance inside the host (package host/wasm). The
// supervisor speaks whole lines over Stdin and Stdout and never touches
// what runs them; the seam knows nothing of the protocol nor of the
// system: an Exit says what ended a program in words any transport can
// mean, and an ID names it the same way for all.
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
	// Env is the app's environment with the host's ESCOUADE_* variables;
	// a transport gives its program only what docs/protocol.md#plugin-env
	// lists of it. A transport whose programs take none leaves it:
	// a module gets no environment (docs/protocol.md#loading-and-compiling).
	Env []string
	// Stderr receives each line the program writes on stderr.
	Stderr func(line string)
	// Journal receives lines a transport has to say about the program
	// itself (tag "wasm": a root JSON file left out, a compile under way).
	// Nil writes nothing.
	Journal func(tag, text string)
	// Program is the hex SHA-256 of each file the program is, by its path
	// in the folder, as the start's consent check found them (nil: not
	// checked). A transport that reads one of them refuses to run bytes
	// that differ: a file swapped between the check and the read.
	Program map[string]string
}

// Program is one running instance of a plugin's program.
type Program interface {
	// Stdin takes whole lines; Stdout gives the program's lines.
	Stdin() io.WriteCloser
	Stdout() io.ReadCloser
	// ID names the program: the one name the journal and the app show.
	ID() ID
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

// ID names one program. Name is how the journal says it ("instance 3", or
// the system's own word and number), System the number the operating system knows it by, 0 for
// a program that runs inside the host.
type ID struct {
	Name   string
	System int
}

// String is the journal's name of the program.
func (id ID) String() string { return id.Name }

// MemoryReader is implemented by programs whose memory the host polls
// against its limit (1 GB; a module has its own 64 MB limit, enforced by
// its transport).
type MemoryReader interface {
	// Memory is the resident bytes of the program and all it started.
	Memory() (uint64, error)
}

type askedKey struct{}

// Asked marks the context of a Stop whose program was already asked to end
// (it was sent shutdown and had its delay to answer and exit): the
// transport skips its own gentle step (closing stdin and waiting) and goes
// on to the next (the system's request to end), so a host that closes is
// not slowed by two graces that mean the same thing.
func Asked(ctx context.Context) context.Context { return context.WithValue(ctx, askedKey{}, true) }

// WasAsked reports whether ctx is marked by Asked.
func WasAsked(ctx context.Context) bool { v, _ := ctx.Value(askedKey{}).(bool); return v }
