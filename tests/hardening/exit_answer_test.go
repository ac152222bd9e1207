//go:build linux

package hardening

import (
	"fmt"
	"strings"
	"testing"
)

// A program that writes its answer and exits at once has answered: the
// answer is kept in every run, never turned into the crashed default.
func TestAnswerThenExitKeepsTheAnswer(t *testing.T) {
	dir := plugin{fixture: "puppet"}.write(t)
	const runs = 50
	for i := 0; i < runs; i++ {
		// Four ways to end with the answer just written: exit 0, exit 3,
		// the answer in two writes, a SIGKILL of its own.
		code := []int{0, 3, 0, 0}[i%4]
		end := []map[string]any{{"exitAfter": code}, {"exitAfter": code}, {"exitAfter": code, "splitAnswer": true}, {"killAfter": true}}[i%4]
		s := run(t, dir)
		id := fmt.Sprintf("c%d", i)
		a := s.call(id, "do", []any{end})
		if _, ok := a["result"]; !ok {
			t.Errorf("run %d (exit %d): sent {\"op\":\"call\",\"id\":%q,\"method\":\"do\"} to a program that answers and ends (%v); got %v, want a result", i, code, id, end, a)
		}
		s.close()
	}
}

// The same within one run: after each answer-and-exit the program
// restarts, and the next call, sent once the new program is ready, keeps
// its answer too (up to the crash limit). A call sent before the host saw
// the exit may rightly end crashed: the program died with it under way.
func TestAnswerThenExitAcrossRestarts(t *testing.T) {
	dir := plugin{fixture: "puppet"}.write(t)
	s := run(t, dir, "--follow")
	for i := 0; i < 3; i++ { // a fourth crash within 5 minutes stops it
		id := fmt.Sprintf("r%d", i)
		a := s.call(id, "do", []any{map[string]any{"exitAfter": 0}})
		if _, ok := a["result"]; !ok {
			t.Errorf("call %d: got %v, want a result; journal:\n%s", i, a, strings.Join(s.journalOp(50), "\n"))
		}
		s.next("the crash", func(l line) bool {
			return l.str("op") == "journal-line" && strings.Contains(l.str("line"), " crash ")
		})
		s.next("ready again", func(l line) bool { return l.str("op") == "state" && l.str("state") == "ready" })
	}
	s.close()
}
