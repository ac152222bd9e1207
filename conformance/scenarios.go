package conformance

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/services"
)

func (s *session) playScenarios() []Result {
	if s.bench == nil {
		return nil
	}
	results := make([]Result, 0, len(s.bench.Scenarios))
	for _, sc := range s.bench.Scenarios {
		if s.crashedIn != "" {
			results = append(results, outcome{Check{Name: ScenarioPrefix + sc.Name, Title: "call " + sc.Call}}.skip(s.crashSkip()))
			continue
		}
		results = append(results, s.noteCrash([]Result{s.play(sc)})...)
	}
	return results
}

// play makes the scenario's call and judges its answer.
func (s *session) play(sc Scenario) Result {
	o := outcome{Check{Name: ScenarioPrefix + sc.Name, Title: "call " + sc.Call, Fix: scenarioFix}}
	var params any
	if len(sc.Params) > 0 {
		params = sc.Params
	}
	s.row = o.check.Name
	mark := s.desk.mark()
	ans, failure := s.callOne(sc.Call, params, s.opts.delay(sc.Call))
	expected := describeExpectation(sc.Expect)
	if failure != "" {
		return s.failScenario(o, mark, expected, failure)
	}
	if problem := resultProblem(sc.Call, ans); problem != "" {
		return s.failScenario(o, mark, expected, problem)
	}
	if !meets(sc.Expect, ans) {
		res := s.failScenario(o, mark, expected, describeAnswer(ans))
		if ans.Error != nil && ans.Error.Code == services.CodeFailed && res.Fix == scenarioFix {
			res.Fix = "a request of the plugin failed on the way, as it does offline: give the answer of its URL in escouade-bench.json " +
				`("fetch": {"https://…": {"status": 200, "body": "…"}}), or expect {"error": {"code": -32004}}; else ` + scenarioFix
		}
		return res
	}
	switch {
	case sc.Refused != nil:
		return s.judgeRefusals(o, mark, sc.Refused)
	case ans.Error != nil:
		// The refusals of the code it expects are what the scenario asked;
		// the others stay faults of host-requests.
		code := sc.Expect.Error.Code
		s.desk.take(mark, func(r refusal) bool { return r.code == code })
		return o.pass("")
	}
	// The call answered a result after its refusals: the plugin handled
	// them, as docs/writing-a-plugin.md asks. They are said, not failed.
	handled := s.desk.take(mark, func(refusal) bool { return true })
	s.desk.noteHandled(handled)
	if len(handled) == 0 {
		return o.pass("")
	}
	return o.pass("it answered a result after the bench refused, so it handled: " + joinRefusals(handled))
}

// judgeRefusals holds the refusals a scenario's call met to the ones it
// lists: each listed one met, and none other.
func (s *session) judgeRefusals(o outcome, mark int, listed []ExpectedRefusal) Result {
	met := s.desk.take(mark, func(refusal) bool { return true })
	var missing []string
	for _, e := range listed {
		if !slices.ContainsFunc(met, e.matches) {
			missing = append(missing, e.String())
		}
	}
	var unlisted []refusal
	for _, r := range met {
		if !slices.ContainsFunc(listed, func(e ExpectedRefusal) bool { return e.matches(r) }) {
			unlisted = append(unlisted, r)
		}
	}
	expected := "the refusals it lists in \"refused\", and no other"
	switch {
	case len(unlisted) > 0:
		res := o.fail(expected, "the bench refused what the scenario does not list: "+joinRefusals(unlisted))
		res.Fix = hostRequestsFix(s.m.Run.Kind(), unlisted) + `; or list the refusal in the scenario's "refused"`
		return res
	case len(missing) > 0:
		got := "the bench refused nothing"
		if len(met) > 0 {
			got = "the bench refused only " + joinRefusals(met)
		}
		res := o.fail(expected, got+"; not met: "+strings.Join(missing, ", "))
		res.Fix = `make the call ask what the scenario expects refused, or remove it from the scenario's "refused"`
		return res
	}
	s.desk.noteHandled(met)
	return o.pass("met the refusals it lists: " + joinRefusals(met))
}

func joinRefusals(rs []refusal) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.String()
	}
	return strings.Join(parts, "; ")
}

// failScenario fails the scenario's row with the refusals its call met,
// which are then its row's alone, with their fix: a timer/set refused and
// the call it left unanswered are one cause, one failed row.
func (s *session) failScenario(o outcome, mark int, expected, got string) Result {
	refusals := s.desk.take(mark, func(refusal) bool { return true })
	if len(refusals) == 0 {
		return o.fail(expected, got)
	}
	lines := make([]string, len(refusals))
	for i, r := range refusals {
		lines[i] = r.String()
	}
	res := o.fail(expected, got+"\nwhile it ran, the bench refused:\n"+strings.Join(lines, "\n"))
	res.Fix = hostRequestsFix(s.m.Run.Kind(), refusals)
	return res
}

func describeExpectation(e *Expectation) string {
	switch {
	case e == nil:
		return "an answer that is not an error"
	case e.Error != nil && e.Error.Message != nil:
		return fmt.Sprintf("error %d: %s", e.Error.Code, *e.Error.Message)
	case e.Error != nil:
		return fmt.Sprintf("error %d", e.Error.Code)
	case e.Includes != nil:
		return "a result including " + compact(e.Includes)
	}
	return "result " + compact(e.Result)
}

func describeAnswer(ans *jsonrpc.Message) string {
	if ans.Error != nil {
		if reason := ans.Error.Reason(); reason != "" {
			return fmt.Sprintf("error %d: %s (%s)", ans.Error.Code, ans.Error.Message, reason)
		}
		return fmt.Sprintf("error %d: %s", ans.Error.Code, ans.Error.Message)
	}
	return "result " + compact(ans.Result)
}

// meets reports whether the answer is what the scenario expects.
func meets(e *Expectation, ans *jsonrpc.Message) bool {
	switch {
	case e == nil:
		return ans.Error == nil
	case e.Error != nil:
		return ans.Error != nil && ans.Error.Code == e.Error.Code &&
			(e.Error.Message == nil || *e.Error.Message == ans.Error.Message)
	case e.Includes != nil:
		return ans.Error == nil && includesJSON(ans.Result, e.Includes)
	}
	return ans.Error == nil && sameJSON(e.Result, ans.Result)
}

// sameJSON compares two JSON texts as values: member order, spacing and
// number spelling (1 and 1.0) aside.
func sameJSON(a, b json.RawMessage) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// includesJSON reports whether the result has every member of part with
// the same value: objects inside judged the same way, arrays and scalars
// compared whole.
func includesJSON(result, part json.RawMessage) bool {
	var vr, vp any
	if json.Unmarshal(result, &vr) != nil || json.Unmarshal(part, &vp) != nil {
		return false
	}
	return includesValue(vr, vp)
}

func includesValue(result, part any) bool {
	po, isObject := part.(map[string]any)
	if !isObject {
		return reflect.DeepEqual(result, part)
	}
	ro, ok := result.(map[string]any)
	if !ok {
		return false
	}
	for k, v := range po {
		rv, ok := ro[k]
		if !ok || !includesValue(rv, v) {
			return false
		}
	}
	return true
}

// compact writes raw JSON on one line, cut for a report.
func compact(raw json.RawMessage) string {
	var b []byte
	if v, err := json.Marshal(raw); err == nil {
		b = v
	} else {
		b = raw
	}
	return excerpt(b)
}
