package conformance

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/escouade-dev/escouade-plugin/internal/closest"
)

// benchPlace turns a JSON pointer of escouade-bench.json into a refusal
// that says where it is.
type benchPlace struct {
	data []byte
	pos  map[string]int
	// scenario names the scenario being checked, "" outside one.
	scenario string
}

func (p *benchPlace) refuse(ptr, msg, fix string) error {
	line, col := lineColumn(p.data, p.pos[ptr])
	return &BenchFileError{Line: line, Column: col, Pointer: ptr, Scenario: p.scenario, Message: msg, Fix: fix}
}

// The members each object of escouade-bench.json may have.
var (
	benchMembers       = []string{"secrets", "settings", "fetch", "scenarios"}
	scenarioMembers    = []string{"name", "call", "params", "expect", "refused"}
	refusalMembers     = []string{"method", "code"}
	expectationMembers = []string{"result", "includes", "error"}
	fetchMembers       = []string{"status", "headers", "body"}
	errorMembers       = []string{"code", "message"}
)

// memberAliases are the words a newcomer writes for a member the format
// names otherwise (JSON-RPC says method and params).
var memberAliases = map[string]string{"method": "call", "args": "params", "arguments": "params", "expected": "expect"}

// checkBenchShape checks the decoded file against the format, naming the
// first field that does not hold.
func checkBenchShape(doc any, p *benchPlace) error {
	top, ok := doc.(map[string]any)
	if !ok {
		return p.refuse("", fmt.Sprintf("the file holds %s, not a JSON object", kindOf(doc)),
			`write one object: {"scenarios": [{"name": "…", "call": "…"}]}`)
	}
	if err := p.members("", top, benchMembers); err != nil {
		return err
	}
	if secrets, ok := top["secrets"]; ok {
		if err := p.stringMap("/secrets", secrets, `write each fake secret as "key": "value"`); err != nil {
			return err
		}
	}
	if settings, ok := top["settings"]; ok {
		if _, isObject := settings.(map[string]any); !isObject {
			return p.refuse("/settings", fmt.Sprintf("is %s, not an object", kindOf(settings)), `write the settings as {"key": value}`)
		}
	}
	if fetch, ok := top["fetch"]; ok {
		if err := p.fetchShape(fetch); err != nil {
			return err
		}
	}
	scenarios, ok := top["scenarios"]
	if !ok {
		return nil
	}
	list, isList := scenarios.([]any)
	if !isList {
		return p.refuse("/scenarios", fmt.Sprintf("is %s, not an array", kindOf(scenarios)), `write the scenarios as a list: [{"name": "…", "call": "…"}]`)
	}
	names := map[string]int{}
	for i, sc := range list {
		if err := p.scenarioShape(i, sc, names); err != nil {
			return err
		}
	}
	p.scenario = ""
	return nil
}

func (p *benchPlace) scenarioShape(i int, sc any, names map[string]int) error {
	ptr := "/scenarios/" + strconv.Itoa(i)
	p.scenario = "scenario " + strconv.Itoa(i)
	obj, ok := sc.(map[string]any)
	if !ok {
		return p.refuse(ptr, fmt.Sprintf("is %s, not an object", kindOf(sc)), `write a scenario as {"name": "…", "call": "…"}`)
	}
	if name, ok := obj["name"].(string); ok && name != "" {
		p.scenario += fmt.Sprintf(" (%q)", name)
	}
	if err := p.members(ptr, obj, scenarioMembers); err != nil {
		return err
	}
	name, err := p.requiredString(ptr, obj, "name", "give the scenario a name, unique in the file")
	if err != nil {
		return err
	}
	if first, dup := names[name]; dup {
		return p.refuse(ptr+"/name", fmt.Sprintf("%q is given twice (first in scenario %d)", name, first), "give each scenario its own name")
	}
	names[name] = i
	if _, err := p.requiredString(ptr, obj, "call", `give the method to call, e.g. "tickets/echo"`); err != nil {
		return err
	}
	if params, ok := obj["params"]; ok {
		switch params.(type) {
		case map[string]any, []any, nil:
		default:
			return p.refuse(ptr+"/params", fmt.Sprintf("is %s: params are an object or an array", kindOf(params)), `write {"key": value}, or remove "params"`)
		}
	}
	if refused, ok := obj["refused"]; ok {
		if err := p.refusedShape(ptr+"/refused", refused); err != nil {
			return err
		}
	}
	if expect, ok := obj["expect"]; ok {
		return p.expectShape(ptr+"/expect", expect)
	}
	return nil
}

// refusedShape checks a scenario's list of expected refusals.
func (p *benchPlace) refusedShape(ptr string, v any) error {
	const fix = `write [{"method": "net/fetch", "code": -32003}] ("code" may be left out)`
	list, ok := v.([]any)
	if !ok {
		return p.refuse(ptr, fmt.Sprintf("is %s, not an array", kindOf(v)), fix)
	}
	for i, item := range list {
		at := ptr + "/" + strconv.Itoa(i)
		obj, ok := item.(map[string]any)
		if !ok {
			return p.refuse(at, fmt.Sprintf("is %s, not an object", kindOf(item)), fix)
		}
		if err := p.members(at, obj, refusalMembers); err != nil {
			return err
		}
		if _, err := p.requiredString(at, obj, "method", `give the method refused, e.g. "net/fetch"`); err != nil {
			return err
		}
		if code, ok := obj["code"]; ok {
			if n, isNumber := code.(json.Number); !isNumber || !isInteger(n) {
				return p.refuse(at+"/code", fmt.Sprintf("is %s, not an integer", kindOf(code)), "write the code as a number, e.g. -32003")
			}
		}
	}
	return nil
}

func (p *benchPlace) expectShape(ptr string, expect any) error {
	obj, ok := expect.(map[string]any)
	if !ok {
		return p.refuse(ptr, fmt.Sprintf("is %s, not an object", kindOf(expect)), `write {"result": …} or {"error": {"code": …}}`)
	}
	if err := p.members(ptr, obj, expectationMembers); err != nil {
		return err
	}
	_, hasResult := obj["result"]
	includes, hasIncludes := obj["includes"]
	e, hasError := obj["error"]
	switch {
	case hasResult && hasIncludes:
		return p.refuse(ptr, "gives both result and includes", `keep "result" for the whole result, or "includes" for the members it must have`)
	case (hasResult || hasIncludes) && hasError:
		return p.refuse(ptr, "gives both result and error", "keep the one the call must answer")
	case !hasResult && !hasIncludes && !hasError:
		return p.refuse(ptr, "gives neither result nor error", `give "result", "includes" or "error", or remove "expect" to accept any answer that is not an error`)
	case hasIncludes:
		if _, isObject := includes.(map[string]any); !isObject {
			return p.refuse(ptr+"/includes", fmt.Sprintf("is %s, not an object", kindOf(includes)),
				`write the members the result must have, {"key": value}; for a whole result that is not an object use "result"`)
		}
		return nil
	case hasResult:
		return nil // any JSON value is a result
	}
	errObj, ok := e.(map[string]any)
	if !ok {
		return p.refuse(ptr+"/error", fmt.Sprintf("is %s, not an object", kindOf(e)), `write {"code": -32602}`)
	}
	if err := p.members(ptr+"/error", errObj, errorMembers); err != nil {
		return err
	}
	code, ok := errObj["code"]
	if !ok {
		return p.refuse(ptr+"/error", `has no "code"`, `give the error code expected, e.g. "code": -32602`)
	}
	if n, isNumber := code.(json.Number); !isNumber || !isInteger(n) {
		return p.refuse(ptr+"/error/code", fmt.Sprintf("is %s, not an integer", kindOf(code)), "write the code as a number, e.g. -32602")
	}
	if msg, ok := errObj["message"]; ok {
		if _, isString := msg.(string); !isString {
			return p.refuse(ptr+"/error/message", fmt.Sprintf("is %s, not a string", kindOf(msg)), "write the exact message expected, or remove it")
		}
	}
	return nil
}

// fetchShape checks the bench's answers to net/fetch, by URL.
func (p *benchPlace) fetchShape(v any) error {
	const fix = `write {"https://host/path": {"status": 200, "headers": {"content-type": "application/json"}, "body": "…"}}`
	urls, ok := v.(map[string]any)
	if !ok {
		return p.refuse("/fetch", fmt.Sprintf("is %s, not an object", kindOf(v)), fix)
	}
	for _, u := range slices.Sorted(maps.Keys(urls)) {
		ptr := "/fetch/" + escapePointer(u)
		answer, ok := urls[u].(map[string]any)
		if !ok {
			return p.refuse(ptr, fmt.Sprintf("is %s, not an object", kindOf(urls[u])), fix)
		}
		if err := p.members(ptr, answer, fetchMembers); err != nil {
			return err
		}
		if status, ok := answer["status"]; ok {
			n, isNumber := status.(json.Number)
			if !isNumber || !isInteger(n) {
				return p.refuse(ptr+"/status", fmt.Sprintf("is %s, not an integer", kindOf(status)), "write the HTTP status as a number, e.g. 200")
			}
		}
		if headers, ok := answer["headers"]; ok {
			if err := p.stringMap(ptr+"/headers", headers, `write each header as "name": "value"`); err != nil {
				return err
			}
		}
		if body, ok := answer["body"]; ok {
			if _, isString := body.(string); !isString {
				return p.refuse(ptr+"/body", fmt.Sprintf("is %s, not a string", kindOf(body)), "write the body as a string (JSON inside it escaped)")
			}
		}
	}
	return nil
}

func isInteger(n json.Number) bool {
	_, err := strconv.ParseInt(n.String(), 10, 64)
	return err == nil
}

// members refuses a member the format does not have, suggesting the one
// a typo stands for.
func (p *benchPlace) members(ptr string, obj map[string]any, known []string) error {
	for _, key := range slices.Sorted(maps.Keys(obj)) {
		if slices.Contains(known, key) {
			continue
		}
		fix := fmt.Sprintf("remove %q or correct it: the members here are %s", key, strings.Join(known, ", "))
		near := closest.Match(key, known)
		if alias, ok := memberAliases[key]; ok && slices.Contains(known, alias) {
			near = alias
		}
		if near != "" {
			fix = fmt.Sprintf("write %q", near)
		}
		return p.refuse(ptr+"/"+escapePointer(key), fmt.Sprintf("unknown member %q", key), fix)
	}
	return nil
}

func (p *benchPlace) requiredString(ptr string, obj map[string]any, key, fix string) (string, error) {
	v, ok := obj[key]
	if !ok {
		return "", p.refuse(ptr, fmt.Sprintf("has no %q", key), fix)
	}
	s, isString := v.(string)
	if !isString {
		return "", p.refuse(ptr+"/"+key, fmt.Sprintf("is %s, not a string", kindOf(v)), fix)
	}
	if s == "" {
		return "", p.refuse(ptr+"/"+key, "is empty", fix)
	}
	return s, nil
}

func (p *benchPlace) stringMap(ptr string, v any, fix string) error {
	obj, ok := v.(map[string]any)
	if !ok {
		return p.refuse(ptr, fmt.Sprintf("is %s, not an object", kindOf(v)), fix)
	}
	for _, key := range slices.Sorted(maps.Keys(obj)) {
		if _, isString := obj[key].(string); !isString {
			return p.refuse(ptr+"/"+escapePointer(key), fmt.Sprintf("is %s, not a string", kindOf(obj[key])), fix)
		}
	}
	return nil
}

// kindOf names the JSON type of a decoded value.
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	}
	return "an object"
}
