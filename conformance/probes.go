package conformance

import (
	"fmt"
	"strings"
	"time"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/protocol"
	"github.com/escouade-dev/escouade-plugin/vocab"
)

// What the probes call. Methods under escouade-bench/ are served by no
// plugin: any answer, error included, tells the bench what it wants to know.
const (
	methodInitialize = vocab.MethodInitialize
	methodShutdown   = vocab.MethodShutdown
	methodIDs        = "escouade-bench/ids"
	methodBatch      = "escouade-bench/batch"
	methodConcurrent = "escouade-bench/concurrent"
	methodUnknown    = "escouade-bench/no-such-method"
	// methodDecision has the shortest delay of the protocol (permissions/*).
	methodDecision = "permissions/escouade-bench"
	// methodEvent is the notification of the probes: an event nobody
	// activates on, which a plugin must take without answering.
	methodEvent = "event/escouade-bench"
)

// The exact ids of the ids probe: escaped quotes in a string, and an integer
// past 2^53 that a float parser rounds to 9007199254740992.
const (
	stringID = `"escouade-bench \"id\" 1"`
	bigID    = `9007199254740993`
)

// emptyParams is sent where a method takes no params.
var emptyParams = struct{}{}

// initializeParams is what the host itself sends first (host.InitializeParams).
func (s *session) initializeParams() any {
	return host.InitializeParams(s.m, s.opts.AppVersion, s.opts.Lang)
}

func (s *session) checkInitialize() []Result {
	o := about(CheckInitialize)
	d := s.opts.delay(methodInitialize)
	expected := fmt.Sprintf(`{"protocolVersion":1,"capabilities":{…}} within %s`, protocol.FormatDuration(d))
	id := s.newID()
	if err := s.send(request(id, methodInitialize, s.initializeParams())); err != nil {
		return []Result{o.fail(expected, s.writeFailure(err))}
	}
	got := s.await([]string{id}, d)
	ans := got.answers[id]
	switch {
	case ans == nil && got.err == errTimeout && len(got.foreign) == 0:
		s.initID = id
		text := "no answer to initialize within " + protocol.FormatDuration(d)
		if s.wire.linesSeen() == 0 {
			text += "; nothing at all came on its stdout (if it answered, its stdout may be buffered: flush it after each line)"
		}
		return []Result{o.fail(expected, text)}
	case ans == nil:
		return []Result{o.fail(expected, got.describeMissing(methodInitialize, []string{id}, d))}
	case ans.Error != nil:
		return []Result{o.fail(expected, "its answer to initialize is an error: "+ans.Error.Message)}
	}
	if why := protocol.VersionProblem(ans.Result); why != "" {
		return []Result{o.fail(expected, why+": "+string(ans.Result))}
	}
	if err := protocol.ValidateResult(methodInitialize, ans.Result); err != nil {
		return []Result{o.fail(expected, err.Error())}
	}
	return []Result{o.pass(string(ans.Result))}
}

func (s *session) checkIDs() []Result {
	o := about(CheckIDs)
	d := s.opts.delay(methodIDs)
	expected := fmt.Sprintf("answers with the ids %s and %s, byte for byte", stringID, bigID)
	for _, id := range []string{stringID, bigID} {
		if err := s.send(request(id, methodIDs, emptyParams)); err != nil {
			return []Result{o.fail(expected, s.writeFailure(err))}
		}
		got := s.await([]string{id}, d)
		if got.err != nil {
			return []Result{o.fail(expected, got.describeMissing(methodIDs, []string{id}, d))}
		}
	}
	return []Result{o.pass("a string id with escaped quotes, and 9007199254740993")}
}

func (s *session) checkBatch() []Result {
	o := about(CheckBatch)
	d := s.opts.delay(methodBatch)
	a, b := s.newID(), s.newID()
	ids := []string{a, b}
	expected := fmt.Sprintf("one array line holding the answers to ids %s and %s", a, b)
	err := s.sendBatch(request(a, methodBatch, emptyParams), notification(methodEvent, emptyParams),
		request(b, methodBatch, emptyParams))
	if err != nil {
		return []Result{o.fail(expected, s.writeFailure(err))}
	}
	got := s.await(ids, d)
	if got.err != nil {
		return []Result{o.fail(expected, got.describeMissing(methodBatch, ids, d))}
	}
	if len(got.lines) != 1 || !got.lines[0].batch {
		return []Result{o.fail(expected, describeLines(got.lines))}
	}
	return []Result{o.pass("")}
}

// describeLines says how answers came, for a batch answered wrongly.
func describeLines(lines []received) string {
	parts := make([]string, len(lines))
	for i, l := range lines {
		shape := "a single answer"
		if l.batch {
			shape = "an array"
		}
		parts[i] = fmt.Sprintf("%s (id %s)", shape, answerIDs(l.answers))
	}
	return fmt.Sprintf("%d lines: %s", len(lines), strings.Join(parts, ", "))
}

func answerIDs(answers []*jsonrpc.Message) string {
	ids := make([]string, len(answers))
	for i, a := range answers {
		ids[i] = a.ID.String()
	}
	return strings.Join(ids, ", ")
}

func (s *session) checkNotificationBatch() []Result {
	o := about(CheckNotificationBatch)
	expected := fmt.Sprintf("nothing on stdout for %s", protocol.FormatDuration(s.opts.QuietWait))
	stop := s.wire.listenQuietly()
	err := s.sendBatch(notification(methodEvent, emptyParams), notification(methodEvent, emptyParams))
	if err != nil {
		stop()
		return []Result{o.fail(expected, s.writeFailure(err))}
	}
	s.wait(s.opts.QuietWait)
	heard, junk := stop()
	switch {
	case len(heard) > 0:
		return []Result{o.fail(expected, strings.Join(heard, "\n"))}
	case junk:
		return []Result{o.follows(CheckStdout, "in its window the program wrote a line that is not JSON, counted there")}
	}
	return []Result{o.pass("")}
}

func (s *session) checkConcurrent() []Result {
	o := about(CheckConcurrent)
	d := s.opts.delay(methodConcurrent)
	a, b := s.newID(), s.newID()
	ids := []string{a, b}
	expected := fmt.Sprintf("answers to ids %s and %s, written together, in any order", a, b)
	if err := s.send(request(a, methodConcurrent, emptyParams), request(b, methodConcurrent, emptyParams)); err != nil {
		return []Result{o.fail(expected, s.writeFailure(err))}
	}
	got := s.await(ids, d)
	if got.err != nil {
		return []Result{o.fail(expected, got.describeMissing(methodConcurrent, ids, d))}
	}
	order := "in the order asked"
	if first := got.lines[0].answers[0].ID.String(); first == b {
		order = "out of order"
	}
	return []Result{o.pass("answered " + order)}
}

func (s *session) checkUnknownMethod() []Result {
	o := about(CheckUnknownMethod)
	d := s.opts.delay(methodUnknown)
	expected := fmt.Sprintf("error -32601 for %s", methodUnknown)
	ans, failure := s.callOne(methodUnknown, emptyParams, d)
	switch {
	case failure != "":
		return []Result{o.fail(expected, failure)}
	case ans.Error == nil:
		return []Result{o.fail(expected, "a result: "+string(ans.Result))}
	case ans.Error.Code != jsonrpc.ErrMethodNotFound.Code:
		return []Result{o.fail(expected, fmt.Sprintf("error %d: %s", ans.Error.Code, ans.Error.Message))}
	}
	return []Result{o.pass("")}
}

func (s *session) checkDelay() []Result {
	o := about(CheckDelay)
	d := s.opts.delay(methodDecision)
	expected := fmt.Sprintf("an answer to %s (a decision) within %s; a result or any error", methodDecision, protocol.FormatDuration(d))
	ans, failure := s.callOne(methodDecision, emptyParams, d)
	if failure != "" {
		return []Result{o.fail(expected, failure)}
	}
	if problem := resultProblem(methodDecision, ans); problem != "" {
		return []Result{o.fail(expected, problem)}
	}
	return []Result{o.pass(fmt.Sprintf("%s within %s", methodDecision, protocol.FormatDuration(d)))}
}

// callOne makes one call and waits its delay. failure is what came instead
// of an answer, in the journal's words for a timeout.
func (s *session) callOne(method string, params any, d time.Duration) (*jsonrpc.Message, string) {
	id := s.newID()
	if err := s.send(request(id, method, params)); err != nil {
		return nil, s.writeFailure(err)
	}
	got := s.await([]string{id}, d)
	switch {
	case got.answers[id] != nil:
		return got.answers[id], ""
	case got.err == errTimeout && len(got.foreign) == 0:
		return nil, fmt.Sprintf("%s: no answer within %s", method, protocol.FormatDuration(d))
	}
	return nil, got.describeMissing(method, []string{id}, d)
}

// resultProblem checks a success answer against the schema's result of
// method; an error answer has no result to check.
func resultProblem(method string, ans *jsonrpc.Message) string {
	if ans.Error != nil {
		return ""
	}
	if err := protocol.ValidateResult(method, ans.Result); err != nil {
		return fmt.Sprintf("%s answered %s: %v", method, excerpt(ans.Result), err)
	}
	return ""
}
