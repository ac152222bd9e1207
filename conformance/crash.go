package conformance

import (
	"fmt"
	"strings"

	"github.com/escouade-dev/escouade-plugin/host"
)

// crashFix replaces a check's own fix when the program ended during it:
// the check's advice would send the author after the wrong fault.
const crashFix = "keep the program running until shutdown or the end of its stdin: find in its stderr (below) why it ended, " +
	"and answer an error (-32603) to a call it cannot serve rather than exit"

// ended reports, without waiting, whether the program is gone or its
// stdout ended.
func (s *session) ended() bool {
	select {
	case <-s.prog.Done():
		return true
	case <-s.wire.readerDone():
		return true
	default:
		return false
	}
}

// crashed reports whether the program ended before the bench asked it to.
// Once its stdout ended it is given a grace to be reaped, so that its exit
// status can be told.
func (s *session) crashed() bool {
	if s.exitedAlone || s.stopped || !s.ended() {
		return false
	}
	s.exitWithin(s.opts.StopGrace)
	return true
}

// exitText says how the program ended, in the host's words: "exit code
// 3", "signal killed".
func (s *session) exitText() string {
	select {
	case <-s.prog.Done():
		return host.ExitText(s.prog.Exit())
	default:
		return "its stdout closed"
	}
}

// writeFailure says why a call could not be written: most often the
// program already ended, which "broken pipe" would hide. A program that
// exits closes its stdin before its end is seen, so a refused write waits
// the program's grace for its end (and its exit status) before it is said
// to be the pipe's.
func (s *session) writeFailure(err error) string {
	if s.exitWithin(s.opts.StopGrace) || s.ended() {
		s.endedBeforeCall = true
		return fmt.Sprintf("the program had already ended (%s) when the bench wrote its call", s.exitText())
	}
	return "the bench could not write to its stdin: " + err.Error()
}

// noteCrash looks, after a check, for a program that ended before
// shutdown. The first check to see it carries the fault: a failure of its
// own gets the exit and the crash's fix; a pass becomes that failure, as
// ending is the fault. Later rows are skipped (see play).
func (s *session) noteCrash(results []Result) []Result {
	if s.crashedIn != "" || len(results) == 0 || !s.crashed() {
		return results
	}
	i := len(results) - 1
	for j, res := range results {
		if res.Status == Fail {
			i = j
			break
		}
	}
	res := &results[i]
	s.crashedIn = "the program crashed during " + res.Check
	how := fmt.Sprintf("the program ended (%s) during this check, before shutdown", s.exitText())
	if s.endedBeforeCall {
		// It answered the check before, then ended: this check is the
		// first to find it gone.
		s.crashedIn = "the program crashed before " + res.Check
		how = fmt.Sprintf("the program ended (%s) before this check could call it, after answering the one before; it should run until shutdown", s.exitText())
		res.Status = Pass
	}
	if last := s.stderr.last(); len(last) > 0 {
		how += "; its last stderr line: " + last[len(last)-1]
	}
	if res.Status != Fail {
		res.Status, res.Detail = Fail, ""
		res.Expected = "the program running until shutdown"
		res.Got = how
	} else {
		res.Got = strings.TrimSpace(res.Got + "\n" + how)
	}
	res.Fix = crashFix
	return results
}

// crashSkip is the detail of a row skipped after a crash.
func (s *session) crashSkip() string {
	return s.crashedIn
}

// noteBufferedInit amends a timed-out initialize whose answer came once
// the bench closed the program's stdin: the program answered, but its
// stdout is buffered and only flushed at exit.
func (s *session) noteBufferedInit(r *Report, rest []received) {
	if s.initID == "" {
		return
	}
	for _, line := range rest {
		for _, ans := range line.answers {
			if ans.ID.String() != s.initID {
				continue
			}
			for i := range r.Results {
				if r.Results[i].Check == CheckInitialize && r.Results[i].Status == Fail {
					before, _, _ := strings.Cut(r.Results[i].Got, ";")
					r.Results[i].Got = before + "; its answer came only when the bench closed its stdin, " +
						"as the program exited: its stdout is buffered, so nothing it writes reaches the host until it flushes"
				}
			}
			return
		}
	}
}

// flushFix is the fix of a program whose answers come only when it exits.
const flushFix = "flush stdout after each answer line: fflush(stdout) in C, print(..., flush=True) in Python, " +
	"bufio.Writer.Flush in Go, std::io::stdout().flush() in Rust; without it the answers wait in a buffer the program writes out only at exit"

// noteLateAnswers amends the rows whose calls got no answer in time but
// whose answers came after all: during shutdown or at the program's exit
// (rest holds what came after the last row), a stdout flushed only at
// exit, and the fault of the row is not its own rule (ids, batch) but the
// missing flush; during a later row, an answer that came late.
func (s *session) noteLateAnswers(r *Report, rest []received) {
	s.row = "the program's exit"
	for _, line := range rest {
		s.noteLate(line)
	}
	root := ""
	for i := range r.Results {
		res := &r.Results[i]
		came, ok := s.late[res.Check]
		if !ok || res.Status != Fail || res.Check == CheckInitialize {
			continue
		}
		if came != CheckShutdown && came != s.row {
			res.Got += "; its answer came later, during " + came
			continue
		}
		// One cause, one failed row: the first row it broke carries it,
		// the others follow from it.
		if root != "" {
			*res = outcome{lookupCheck(res.Check)}.follows(root, "its answers too came only at exit (a buffered stdout)")
			continue
		}
		root = res.Check
		when := "when the program exited"
		if came == CheckShutdown {
			when = "with the answer to shutdown"
		}
		res.Got += "; its answer came only " + when + ": no answer line reached the bench before, as its stdout is buffered and flushed only at exit"
		res.Fix = flushFix
	}
}
