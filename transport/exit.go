package transport

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Kind is how a program ended, in words any transport can mean.
type Kind int

// The ways a program ends.
const (
	// Running is the zero Exit: the program has not ended.
	Running Kind = iota
	// Exited: it ended by itself with Code (a WASI proc_exit too).
	Exited
	// Ended: something outside it ended it; By says what.
	Ended
	// Trapped: it failed inside (a trap, a guest panic, an uncaught
	// exception; Detail says why).
	Trapped
	// TurnTooLong: it broke its turn limit, Limit, and the host stopped it.
	TurnTooLong
	// OutOfMemory: it broke its memory limit, Memory bytes.
	OutOfMemory
)

// Ender is what ended a program that did not end by itself.
type Ender int

const (
	// ByOther: neither the program nor the host (the system for a fault it
	// would not go on after, a user, another program).
	ByOther Ender = iota
	// ByHostAsked: the host asked it to end, and it was ended as asked.
	ByHostAsked
	// ByHostForced: the host forced it to end.
	ByHostForced
)

// Exit is how a program ended. It is an error so that callers can match
// its kind with errors.Is (ErrTrapped, ErrTurnTooLong, ErrOutOfMemory…).
type Exit struct {
	Kind   Kind
	Code   int           // Exited
	By     Ender         // Ended
	Detail string        // Trapped: the trap or the uncaught exception; Ended: the transport's own words for it, if it has some
	Limit  time.Duration // TurnTooLong
	Memory uint64        // OutOfMemory: the limit, in bytes
}

// Sentinels matched by errors.Is(exit, …).
var (
	ErrExited      = errors.New("exited")
	ErrEnded       = errors.New("ended from outside")
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
	case Ended:
		return target == ErrEnded
	case Trapped:
		return target == ErrTrapped
	case TurnTooLong:
		return target == ErrTurnTooLong
	case OutOfMemory:
		return target == ErrOutOfMemory
	}
	return false
}

// String is the short form: "exit code 3", "stopped by Escouade", the
// transport's own words for an end from outside, "trap: …".
func (e Exit) String() string {
	switch e.Kind {
	case Exited:
		return "exit code " + strconv.Itoa(e.Code)
	case Ended:
		if e.Detail != "" {
			return e.Detail
		}
		return e.By.String()
	case Trapped:
		return "trap: " + e.Detail
	case TurnTooLong:
		return fmt.Sprintf("turn past %d ms", e.Limit.Milliseconds())
	case OutOfMemory:
		return fmt.Sprintf("out of %d MB of memory", e.Memory>>20)
	}
	return "running"
}

// String says who ended a program.
func (b Ender) String() string {
	switch b {
	case ByHostAsked:
		return "ended as Escouade asked"
	case ByHostForced:
		return "stopped by Escouade"
	}
	return "ended from outside"
}

// Sentence is what the journal's crash entry says (docs/protocol.md#6-the-queue-crashes-and-re-attach and #limits):
// "crashed: exit code 3", "a turn ran past 2000 ms: Escouade stopped its
// instance", "its instance ran out of its 64 MB of memory", "its instance
// crashed: <trap text>".
func (e Exit) Sentence() string {
	switch e.Kind {
	case Exited, Ended:
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
