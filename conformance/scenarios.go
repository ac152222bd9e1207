package conformance

import (
	"encoding/json"
	"fmt"
	"reflect"
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
	if sc.Expect != nil && sc.Expect.Error != nil {
		// The refusals of the code it expects are what the scenario asked.
		code := sc.Expect.Error.Code
		s.desk.take(mark, func(r refusal) bool { return r.code == code })
	}
	return o.pass("")
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
