package transport

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Kind is how a program ended.
type Kind int

// The ways a program ends.
const (
	// Running is the zero Exit: the program has not ended.
	Running Kind = iota
	// Exited: the program exited by itself with Code (a WASI proc_exit
	// too).
	Exited
	// Signalled: a signal ended the process (Signal names it).
	Signalled
	// Trapped: the instance trapped or its guest panicked (Detail says
	// why).
	Trapped
	// TurnTooLong: a turn ran past Limit and the host stopped the
	// instance.
	TurnTooLong
	// OutOfMemory: the instance needed more than its Memory bytes.
	OutOfMemory
)

// Exit is how a program ended. It is an error so that callers can match
// its kind with errors.Is (ErrTrapped, ErrTurnTooLong, ErrOutOfMemory…).
type Exit struct {
	Kind   Kind
	Code   int           // Exited
	Signal string        // Signalled: "killed", "terminated", as syscall.Signal spells it
	Detail string        // Trapped: the trap or the uncaught exception
	Limit  time.Duration // TurnTooLong
	Memory uint64        // OutOfMemory: the limit, in bytes
}

// Sentinels matched by errors.Is(exit, …).
var (
	ErrExited      = errors.New("exited")
	ErrSignalled   = errors.New("killed by a signal")
	ErrTrapped     = errors.New("trapped")
	ErrTurnTooLong = errors.New("turn past its time")
	ErrOutOfMemory = errors.New("out of memory")
)

// Error makes Exit an error; it is Sentence.
func (e Exit) Error() string { return e.Sentence() }

// Is matches the sentinel of e's kind.
func (e Exit) Is(target error) bool {
	switch e.Kind {
	case Exited:
		return target == ErrExited
	case Signalled:
		return target == ErrSignalled
	case Trapped:
		return target == ErrTrapped
	case TurnTooLong:
		return target == ErrTurnTooLong
	case OutOfMemory:
		return target == ErrOutOfMemory
	}
	return false
}

// String is the short form: "exit code 3", "signal killed", "trap: …".
func (e Exit) String() string {
	switch e.Kind {
	case Exited:
		return "exit code " + strconv.Itoa(e.Code)
	case Signalled:
		return "signal " + e.Signal
	case Trapped:
		return "trap: " + e.Detail
	case TurnTooLong:
		return fmt.Sprintf("turn past %d ms", e.Limit.Milliseconds())
	case OutOfMemory:
		return fmt.Sprintf("out of %d MB of memory", e.Memory>>20)
	}
	return "running"
}

// Sentence is what the journal's crash entry says (docs/protocol.md#6-the-queue-crashes-and-re-attach and #limits):
// "crashed: exit code 3", "a turn ran past 2000 ms: Escouade stopped its
// instance", "its instance ran out of its 64 MB of memory", "its instance
// crashed: <trap text>".
func (e Exit) Sentence() string {
	switch e.Kind {
	case Exited, Signalled:
		return "crashed: " + e.String()
	case Trapped:
		return "its instance crashed: " + e.Detail
	case TurnTooLong:
		return fmt.Sprintf("a turn ran past %d ms: Escouade stopped its instance", e.Limit.Milliseconds())
	case OutOfMemory:
		return fmt.Sprintf("its instance ran out of its %d MB of memory", e.Memory>>20)
	}
	return "crashed"
}
