package host

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/escouade-dev/escouade-plugin/transport"
)

// The host's words for how a program ended. The seam says what ended it
// (a kind and its numbers, transport.Exit); what the journal, the app and
// the bench say of it is the host's.

// crashText is the crash entry: how the program ended and its last lines
// of stderr.
func crashText(prog transport.Program) string {
	var b strings.Builder
	b.WriteString(CrashSentence(prog.Exit()))
	lines := prog.LastStderr()
	switch {
	case len(lines) == 1:
		b.WriteString("; last line of stderr:")
	case len(lines) > 1:
		fmt.Fprintf(&b, "; last %d lines of stderr:", len(lines))
	}
	for _, l := range lines {
		b.WriteString("\n| " + l)
	}
	return b.String()
}

// CrashSentence is what the journal's crash entry says of how a program
// ended (docs/protocol.md#6-the-queue-crashes-and-re-attach and #limits):
// "crashed: exit code 3", "a turn ran past 2000 ms: Escouade stopped its
// instance", "its instance ran out of its 64 MB of memory", "its instance
// crashed: <trap text>".
func CrashSentence(e transport.Exit) string {
	switch e.Kind {
	case transport.Exited, transport.Ended:
		return "crashed: " + ExitText(e)
	case transport.Trapped:
		return "its instance crashed: " + e.Detail
	case transport.TurnTooLong:
		return fmt.Sprintf("a turn ran past %d ms: Escouade stopped its instance", e.Limit.Milliseconds())
	case transport.OutOfMemory:
		return fmt.Sprintf("its instance ran out of its %d MB of memory", e.Memory>>20)
	}
	return "crashed"
}

// ExitText is the short form the crash entry and the bench's report say:
// "exit code 3", the transport's own words for an end from outside (its
// Detail), "stopped by Escouade", "trap: …".
func ExitText(e transport.Exit) string {
	switch e.Kind {
	case transport.Exited:
		return "exit code " + strconv.Itoa(e.Code)
	case transport.Ended:
		if e.Detail != "" {
			return e.Detail
		}
		return enderText(e.By)
	case transport.Trapped:
		return "trap: " + e.Detail
	case transport.TurnTooLong:
		return fmt.Sprintf("turn past %d ms", e.Limit.Milliseconds())
	case transport.OutOfMemory:
		return fmt.Sprintf("out of %d MB of memory", e.Memory>>20)
	}
	return "running"
}

// enderText says who ended a program that did not end by itself.
func enderText(by transport.Ender) string {
	switch by {
	case transport.ByHostAsked:
		return "ended as Escouade asked"
	case transport.ByHostForced:
		return "stopped by Escouade"
	}
	return "ended from outside"
}
