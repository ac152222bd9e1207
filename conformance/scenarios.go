package conformance

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
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
	ans, failure := s.callOne(sc.Call, params, s.opts.delay(sc.Call))
	expected := describeExpectation(sc.Expect)
	if failure != "" {
		return o.fail(expected, failure)
	}
	if problem := resultProblem(sc.Call, ans); problem != "" {
		return o.fail(expected, problem)
	}
	if !meets(sc.Expect, ans) {
		return o.fail(expected, describeAnswer(ans))
	}
	return o.pass("")
}

func describeExpectation(e *Expectation) string {
	switch {
	case e == nil:
		return "an answer that is not an error"
	case e.Error != nil && e.Error.Message != nil:
		return fmt.Sprintf("error %d: %s", e.Error.Code, *e.Error.Message)
	case e.Error != nil:
		return fmt.Sprintf("error %d", e.Error.Code)
	}
	return "result " + compact(e.Result)
}

func describeAnswer(ans *jsonrpc.Message) string {
	if ans.Error != nil {
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
