package process

import (
	"bytes"
	"os"
	"time"

	"github.com/escouade-dev/escouade-plugin/protocol"
)

// Defaults used where a Spec field is left at its zero value.
const (
	// DefaultStderrKeep is how many last stderr lines a crash entry holds
	// (docs/protocol.md#6-the-queue-crashes-and-re-attach).
	DefaultStderrKeep = protocol.CrashStderrLines
	// DefaultStderrDrain is how long Done waits, after the program exited,
	// for the rest of its stderr. A child that inherited stderr may keep it
	// open forever; the crash entry must not wait for it.
	DefaultStderrDrain = 200 * time.Millisecond
)

// TokenEnv is the variable Start adds to a program's environment on Linux:
// a random token of its own that every process it starts inherits, so a
// process that left its group and its tree (setsid, setpgid, a daemon's
// double fork) is still known as the program's.
const TokenEnv = "ESCOUADE_INSTANCE_TOKEN"

var tokenPrefix = []byte(TokenEnv + "=")

// tokenIn returns the value of TokenEnv in env, a process's environment as
// /proc/<pid>/environ holds it (NUL-separated); "" when it has none. The
// first one counts, as getenv reads it.
func tokenIn(env []byte) string {
	for kv := range bytes.SplitSeq(env, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, tokenPrefix); ok {
			return string(v)
		}
	}
	return ""
}

// StderrChunkBytes is the longest line handed to Spec.Stderr: a longer line
// arrives cut into chunks of at most this size, so a program that writes
// megabytes without a newline cannot make the host hold them all.
const StderrChunkBytes = protocol.StderrPieceBytes

// Spec says what to run and where its stderr goes. The zero value of every
// optional field means the documented default.
type Spec struct {
	// Dir is the working directory: the plugin folder.
	Dir string
	// Command is the argv. A first element starting with "./" is relative
	// to Dir; otherwise it is looked up in the host's PATH (exec.LookPath).
	Command []string
	// Env is the full environment of the program, built by the host. Nil
	// means the host's own environment; pass an empty slice for none.
	Env []string
	// Stderr receives each stderr line, without its line ending ("\n" or
	// "\r\n"), cut into chunks of at most StderrChunkBytes. It is called
	// from one goroutine, in order, and may be nil. The program's writes to
	// stderr wait while it runs, so it should hand the line on quickly. A
	// line written by a child still holding stderr can arrive after Done.
	Stderr func(line string)
	// StderrKeep is how many last stderr lines LastStderr keeps; zero or
	// less means DefaultStderrKeep.
	StderrKeep int
	// StderrDrain bounds the wait for stderr after the program exited;
	// zero or less means DefaultStderrDrain.
	StderrDrain time.Duration

	// extraFiles are more descriptors for the program (3 onwards): the
	// tests' side channel.
	extraFiles []*os.File
	// timer makes the graces of Stop; nil means time.NewTimer. The tests
	// inject theirs to see the order of the steps.
	timer func(time.Duration) (<-chan time.Time, func() bool)
}

func (s Spec) stderrKeep() int {
	if s.StderrKeep <= 0 {
		return DefaultStderrKeep
	}
	return s.StderrKeep
}

func (s Spec) stderrDrain() time.Duration {
	if s.StderrDrain <= 0 {
		return DefaultStderrDrain
	}
	return s.StderrDrain
}
