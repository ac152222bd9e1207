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

// Error makes Exit an error, in the seam's plain words: "exit code 3",
// "ended (host forced): <the transport's words>", "trap: …", "turn past
// 2000 ms", "out of 64 MB of memory". What a user reads of an exit is the host's to
// say (host.CrashSentence), as wazero's sys.ExitError has a code and no
// wording.
func (e Exit) Error() string {
	switch e.Kind {
	case Exited:
		return "exit code " + strconv.Itoa(e.Code)
	case Ended:
		if e.Detail != "" {
			return "ended (" + e.By.String() + "): " + e.Detail
		}
		return "ended (" + e.By.String() + ")"
	case Trapped:
		return "trap: " + e.Detail
	case TurnTooLong:
		return fmt.Sprintf("turn past %d ms", e.Limit.Milliseconds())
	case OutOfMemory:
		return fmt.Sprintf("out of %d MB of memory", e.Memory>>20)
	}
	return "running"
}

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

// String names who ended a program: "host asked", "host forced",
// "other".
func (b Ender) String() string {
	switch b {
	case ByHostAsked:
		return "host asked"
	case ByHostForced:
		return "host forced"
	}
	return "other"
}
