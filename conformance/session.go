package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/protocol"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// session is one bench run against a started program.
type session struct {
	opts  Options
	m     *manifest.Manifest
	bench *BenchFile // nil without escouade-bench.json
	prog  transport.Program
	wire  *wire
	desk  *hostDesk
	// modules are the module-only services of a run.wasm or run.js
	// program; nil for a process.
	modules *moduleServices

	stderr *stderrLines
	ctx    context.Context // cuts the final stop short when cancelled

	nextID      int64
	exitedAlone bool // the program exited by itself after shutdown
	stopped     bool
	// crashedIn says during (or before) which row the program ended
	// before shutdown; the rows after it are skipped with it.
	crashedIn string
	// endedBeforeCall is set when a call could not be written because the
	// program had already ended.
	endedBeforeCall bool
	// initID is the id of an initialize that got no answer in time, to
	// tell a buffered stdout (the answer comes at exit) from silence.
	initID string
	// row is the row being played; unanswered maps the id of each call
	// that got no answer in time to its row, and late gives, for such a
	// row, the row during which its answer came after all (the
	// shutdown's, for a stdout flushed only at exit).
	row        string
	unanswered map[string]string
	late       map[string]string
}

// newID returns a fresh integer id, as exact JSON text.
func (s *session) newID() string {
	s.nextID++
	return strconv.FormatInt(s.nextID, 10)
}

// outgoing is a message the bench writes, with its id kept as exact text.
type outgoing struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  any             `json:"params,omitempty"`
}

func request(id, method string, params any) outgoing {
	return outgoing{JSONRPC: "2.0", ID: json.RawMessage(id), Method: method, Params: params}
}

func notification(method string, params any) outgoing {
	return outgoing{JSONRPC: "2.0", Method: method, Params: params}
}

// send writes each message on its own line, all in one write.
func (s *session) send(msgs ...outgoing) error {
	lines := make([][]byte, 0, len(msgs))
	for _, m := range msgs {
		line, err := json.Marshal(m)
		if err != nil {
			return err
		}
		if m.ID != nil {
			s.wire.markSent(string(m.ID))
		}
		lines = append(lines, line)
	}
	return s.wire.writeLines(lines...)
}

// sendBatch writes the messages as one array line.
func (s *session) sendBatch(msgs ...outgoing) error {
	for _, m := range msgs {
		if m.ID != nil {
			s.wire.markSent(string(m.ID))
		}
	}
	return s.wire.writeJSON(msgs)
}

// awaited is what came back for a set of ids.
type awaited struct {
	answers map[string]*jsonrpc.Message // by exact id text
	lines   []received                  // the lines holding any of them, in order
	foreign []string                    // ids of answers to nothing the bench sent
	err     error                       // errTimeout or errEnded when some are missing
	elapsed time.Duration               // how long the bench waited
	early   bool                        // it stopped before the delay: the foreign answers stand for the missing ones
}

// missing returns the ids of want not answered, in order.
func (a awaited) missing(want []string) []string {
	var out []string
	for _, id := range want {
		if a.answers[id] == nil {
			out = append(out, id)
		}
	}
	return out
}

// await collects the answers to ids until every one came or d passed. It
// also stops early once as many answers to ids the bench never sent came
// as ids are missing: the program re-typed or dropped them, and waiting
// longer would only repeat it.
func (s *session) await(ids []string, d time.Duration) awaited {
	start := time.Now()
	timer := time.NewTimer(d)
	defer timer.Stop()
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	a := awaited{answers: map[string]*jsonrpc.Message{}}
	defer func() { a.elapsed = time.Since(start) }()
	defer func() { s.noteUnanswered(a.missing(ids)) }()
	for len(a.answers) < len(ids) && len(a.foreign) < len(ids)-len(a.answers) {
		line, err := s.wire.inbox.take(timer.C)
		if err != nil {
			a.err = err
			a.elapsed = time.Since(start)
			return a
		}
		s.noteLate(line)
		a.take(line, want, s.wire.wasSent)
	}
	if len(a.answers) < len(ids) {
		a.err, a.early = errTimeout, true
	}
	a.elapsed = time.Since(start)
	return a
}

// noteUnanswered records the calls of the row being played that got no
// answer in time.
func (s *session) noteUnanswered(ids []string) {
	if len(ids) == 0 || s.row == "" {
		return
	}
	if s.unanswered == nil {
		s.unanswered = map[string]string{}
	}
	for _, id := range ids {
		s.unanswered[id] = s.row
	}
}

// noteLate records the rows whose unanswered calls line answers after
// all, and during which row it came.
func (s *session) noteLate(line received) {
	for _, ans := range line.answers {
		row, ok := s.unanswered[ans.ID.String()]
		if !ok {
			continue
		}
		delete(s.unanswered, ans.ID.String())
		if s.late == nil {
			s.late = map[string]string{}
		}
		if _, first := s.late[row]; !first {
			s.late[row] = s.row
		}
	}
}

func (a *awaited) take(line received, want map[string]bool, sent func(string) bool) {
	ours := false
	for _, ans := range line.answers {
		id := ans.ID.String()
		switch {
		case want[id] && a.answers[id] == nil:
			a.answers[id] = ans
			ours = true
		case !sent(id):
			a.foreign = append(a.foreign, id)
		}
	}
	if ours {
		a.lines = append(a.lines, line)
	}
}

// describeMissing says what came instead of the answers to ids.
func (a awaited) describeMissing(method string, ids []string, d time.Duration) string {
	missing := a.missing(ids)
	var text string
	switch {
	case a.err == errEnded:
		text = fmt.Sprintf("%s: %v before answering %s", method, errEnded, joinIDs(missing))
	case a.early:
		// Say what really happened: the bench did not wait the delay out.
		text = fmt.Sprintf("%s: no answer with %s; after %s answers came with %s instead, which the bench never sent",
			method, joinIDs(missing), roughDuration(a.elapsed), joinIDs(a.foreign))
		return text
	default:
		text = fmt.Sprintf("%s: no answer with %s within %s", method, joinIDs(missing), protocol.FormatDuration(d))
	}
	if len(a.foreign) > 0 {
		text += fmt.Sprintf("; answers came with %s, which the bench never sent", joinIDs(a.foreign))
	}
	return text
}

// roughDuration writes a measured time as a person reads it: "1.7 s",
// "40 ms", never more digits than a measure holds.
func roughDuration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return "less than 1 ms"
	case d < time.Second:
		return protocol.FormatDuration(d.Round(time.Millisecond))
	case d < time.Minute:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", d.Seconds()), ".0") + " s"
	}
	return protocol.FormatDuration(d.Round(time.Second))
}

func joinIDs(ids []string) string {
	switch len(ids) {
	case 0:
		return "no id"
	case 1:
		return "id " + ids[0]
	}
	return "ids " + strings.Join(ids[:len(ids)-1], ", ") + " and " + ids[len(ids)-1]
}

// stderrLines keeps the last lines the program wrote on stderr.
type stderrLines struct {
	mu    sync.Mutex
	keep  int
	lines []string
}

func (l *stderrLines) add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, line)
	if len(l.lines) > l.keep {
		l.lines = l.lines[len(l.lines)-l.keep:]
	}
}

func (l *stderrLines) last() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}
