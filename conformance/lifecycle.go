package conformance

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/escouade-dev/escouade-plugin/protocol"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// childrenRecheck is how long the children check waits before reading the
// memory of what is left a second time: longer than the host's process
// table may be kept (1 s).
const childrenRecheck = 1100 * time.Millisecond

// megabyte is the unit memory is reported in, as the host's journal does.
const megabyte = 1 << 20

// wait lets d pass.
func (s *session) wait(d time.Duration) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	<-timer.C
}

// countMethods writes "log ×1, secrets/get ×2" by method name: requests
// are served concurrently, so the order they were asked in is not kept.
func countMethods(methods []string) string {
	counts := map[string]int{}
	for _, m := range methods {
		counts[m]++
	}
	order := slices.Sorted(maps.Keys(counts))
	parts := make([]string, len(order))
	for i, m := range order {
		parts[i] = fmt.Sprintf("%s ×%d", m, counts[m])
	}
	return strings.Join(parts, ", ")
}

func (s *session) checkMemory() []Result {
	o := about(CheckMemory)
	limit := s.opts.MemoryLimit
	expected := fmt.Sprintf("at most %d MB at idle", limit/megabyte)
	mem, ok := s.prog.(transport.MemoryReader)
	if !ok {
		return []Result{o.pass("runs inside Escouade: its instance holds its own memory limit")}
	}
	bytes, err := mem.Memory()
	switch {
	case err != nil:
		return []Result{o.fail(expected, "the bench could not read its memory: "+err.Error())}
	case bytes > limit:
		return []Result{o.fail(expected, fmt.Sprintf("%d MB of memory, past the limit of %d MB", bytes/megabyte, limit/megabyte))}
	}
	return []Result{o.pass(fmt.Sprintf("%.1f MB resident, with all it started", float64(bytes)/megabyte))}
}

func (s *session) checkShutdown() []Result {
	o := about(CheckShutdown)
	d := s.opts.delay(methodShutdown)
	expected := fmt.Sprintf("an answer to shutdown within %s, then the program's exit within %s",
		protocol.FormatDuration(d), protocol.FormatDuration(s.opts.ExitGrace))
	ans, failure := s.callOne(methodShutdown, emptyParams, d)
	if failure != "" {
		return []Result{o.fail(expected, failure)}
	}
	if ans.Error != nil {
		return []Result{o.fail(expected, "its answer to shutdown is an error: "+ans.Error.Message)}
	}
	if !s.exitWithin(s.opts.ExitGrace) {
		return []Result{o.fail(expected, fmt.Sprintf("it answered shutdown but still ran %s later",
			protocol.FormatDuration(s.opts.ExitGrace)))}
	}
	s.exitedAlone = true
	return []Result{o.pass("")}
}

func (s *session) exitWithin(d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-s.prog.Done():
		return true
	case <-timer.C:
		return false
	}
}

func (s *session) checkChildren() []Result {
	o := about(CheckChildren)
	if !s.exitedAlone {
		return []Result{o.skip("it did not exit by itself; the bench stopped it with all it started")}
	}
	mem, ok := s.prog.(transport.MemoryReader)
	if !ok {
		return []Result{o.pass("runs inside Escouade: it can start nothing")}
	}
	left, err := mem.Memory()
	if err == nil && left > 0 {
		// The host may answer from a table of processes read a moment
		// ago, when the program still ran: what is left is judged on a
		// reading taken after that table aged out.
		s.wait(childrenRecheck)
		left, err = mem.Memory()
	}
	switch {
	case err != nil:
		return []Result{o.fail("nothing of its process group running once it exited",
			"the bench could not look: "+err.Error())}
	case left > 0:
		return []Result{o.fail("nothing of its process group running once it exited",
			fmt.Sprintf("processes it started still run after it exited (%.1f MB resident)", float64(left)/megabyte))}
	}
	return []Result{o.pass("")}
}

func (s *session) checkStdout() []Result {
	o := about(CheckStdout)
	bad, replies := s.wire.bad(), s.wire.repliesToRefusals()
	if len(bad) == 0 && len(replies) == 0 {
		return []Result{o.pass("")}
	}
	var got []string
	if len(bad) == 1 {
		got = append(got, "1 line that is not a JSON-RPC message: "+bad[0])
	} else if len(bad) > 1 {
		got = append(got, fmt.Sprintf("%d lines that are not JSON-RPC messages:\n%s", len(bad), strings.Join(bad, "\n")))
	}
	if len(replies) > 0 {
		got = append(got, "it answered the bench's -32700 (id null) to such a line with an error of its own, "+
			"which answers nothing: a response, a message without \"method\", gets no answer:\n"+strings.Join(replies, "\n"))
	}
	return []Result{o.fail("only JSON-RPC messages, one per line", strings.Join(got, "\n"))}
}
