// Package transport is the seam between the host's supervisor and the
// things that run a plugin's program: a program the operating system runs,
// or a WebAssembly instance inside the host (package host/wasm). The
// supervisor speaks whole lines over Stdin and Stdout and never touches
// what runs them. The seam knows nothing of the protocol, of the system
// nor of the manifest: a LaunchSpec says what to start in its own terms,
// StopOptions what to stop, an Exit what ended a program (a kind and its
// numbers, no wording: the host says it), and ID names a program the same
// way for all. What only some programs have comes through an optional
// interface the host looks for on a Program (MemoryReader here; the host
// reads what only the system's programs have the same way).
//
// A Transport is owned by the host and closed with it: a WASM transport
// holds one wazero.Runtime and its compile cache for every plugin.
// Example shows a transport's whole life, and how a caller tells the
// kinds of Exit apart.
//
// Compare go-plugin's runner.Runner (neutral about what it runs, an ID
// string) and wazero's sys.ExitError (a typed exit, a code, no wording).
package transport

import (
	"context"
	"io"
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

// LaunchSpec is what a transport needs to start a program, in the seam's
// own terms: the host reads them from the plugin's manifest.
type LaunchSpec struct {
	// Name is the plugin's id, for what a transport names after it (a
	// module's instance is "<id>#3" inside its runtime).
	Name string
	// Dir is the plugin's folder: where its program runs and its files
	// are.
	Dir string
	// Kind is the kind of program the plugin declares (its manifest's run
	// kind: "wasm", "js"…); a transport refuses a kind it does not run.
	Kind string
	// Command is the program and its arguments, for a transport that asks
	// the system to run one.
	Command []string
	// File is the file of Dir the transport runs, as the plugin names it
	// (a "js" program's bundle); the transport refuses one outside Dir. ""
	// for a kind whose file its transport fixes (a module is always
	// plugin.wasm) or that has none.
	File string
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
	// ID names the program: the one name the journal and the app show
	// ("instance 3", or the system's own word and number).
	ID() string
	// Done is closed once the program has ended.
	Done() <-chan struct{}
	// Exit says how it ended; valid after Done.
	Exit() Exit
	// LastStderr is its last lines of stderr, oldest first, for a crash
	// entry.
	LastStderr() []string
	// Stop ends it gracefully, then harder, and everything it started with
	// it; it returns once they are gone or ctx is done (a done ctx skips
	// the graces).
	Stop(ctx context.Context, opts StopOptions) error
}

// StopOptions says what the host already did to end a program, so that a
// transport does not do it a second time.
type StopOptions struct {
	// AlreadyAsked: the program was already asked to end (it was sent
	// shutdown and had its delay to answer and exit). A transport whose
	// stop begins with a gentle step of its own (stdin closed, then a
	// wait) skips it and goes on to the next, so that a host that closes
	// is not slowed by two graces that mean the same thing.
	AlreadyAsked bool
}

// MemoryReader is implemented by programs whose memory the host polls
// against its limit (1 GB; a module has its own 64 MB limit, enforced by
// its transport).
type MemoryReader interface {
	// Memory is the resident bytes of the program and all it started.
	Memory() (uint64, error)
}
