package jsonrpc

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type decodeCase struct {
	name string
	line string
	want Line
}

// specExamples are the examples of the JSON-RPC 2.0 specification, §7.
var specExamples = []decodeCase{
	{"positional params", `{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}`,
		single(valid(request("1", "subtract", "[42, 23]")))},
	{"positional params answer", `{"jsonrpc": "2.0", "result": 19, "id": 1}`,
		single(valid(success("1", "19")))},
	{"named params", `{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}`,
		single(valid(request("3", "subtract", `{"subtrahend": 23, "minuend": 42}`)))},
	{"notification", `{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}`,
		single(valid(notification("update", "[1,2,3,4,5]")))},
	{"notification without params", `{"jsonrpc": "2.0", "method": "foobar"}`,
		single(valid(notification("foobar", "")))},
	{"non-existent method is a valid request", `{"jsonrpc": "2.0", "method": "foobar", "id": "1"}`,
		single(valid(request(`"1"`, "foobar", "")))},
	{"method not found answer", `{"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "1"}`,
		single(valid(failure(`"1"`, NewError(-32601, "Method not found"))))},
	{"invalid JSON", `{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]`,
		single(parseItem)},
	{"invalid Request object", `{"jsonrpc": "2.0", "method": 1, "params": "bar"}`,
		single(invalidItem(""))},
	{"batch, invalid JSON", `[
  {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
  {"jsonrpc": "2.0", "method"
]`, single(parseItem)},
	{"empty array", `[]`, single(invalidItem(""))},
	{"invalid batch, not empty", `[1]`, Line{Batch: true, Items: []Item{invalidItem("")}}},
	{"invalid batch", `[1,2,3]`, Line{Batch: true, Items: []Item{invalidItem(""), invalidItem(""), invalidItem("")}}},
	{"mixed batch", `[
        {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
        {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
        {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},
        {"foo": "boo"},
        {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
        {"jsonrpc": "2.0", "method": "get_data", "id": "9"}
    ]`, Line{Batch: true, Items: []Item{
		valid(request(`"1"`, "sum", "[1,2,4]")),
		valid(notification("notify_hello", "[7]")),
		valid(request(`"2"`, "subtract", "[42,23]")),
		invalidItem(""),
		valid(request(`"5"`, "foo.get", `{"name": "myself"}`)),
		valid(request(`"9"`, "get_data", "")),
	}}},
	{"all-notification batch", `[
        {"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]},
        {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}
    ]`, Line{Batch: true, Items: []Item{
		valid(notification("notify_sum", "[1,2,4]")),
		valid(notification("notify_hello", "[7]")),
	}}},
}

// protocolRules are the rules of docs/protocol.md#3-messages and the decisions of the
// package comment.
var protocolRules = []decodeCase{
	// Not JSON, or not only JSON: -32700 with a null id.
	{"not JSON", `hello`, single(parseItem)},
	{"half an object", `{"jsonrpc":"2.0"`, single(parseItem)},
	{"trailing data", `{"jsonrpc":"2.0","method":"a"} x`, single(parseItem)},
	{"two values", `{"jsonrpc":"2.0","method":"a"}{"jsonrpc":"2.0","method":"b"}`, single(parseItem)},
	{"trailing comma", `{"jsonrpc":"2.0","method":"a",}`, single(parseItem)},
	{"invalid UTF-8 in a string", "{\"jsonrpc\":\"2.0\",\"method\":\"a\xff\"}", single(parseItem)},
	{"invalid UTF-8 outside strings", "\xfe{}", single(parseItem)},
	{"byte order mark", "\ufeff{\"jsonrpc\":\"2.0\",\"method\":\"a\"}", single(parseItem)},
	{"NUL", "\x00", single(parseItem)},
	// Framing leftovers.
	{"trailing CR tolerated", "{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\r", single(valid(notification("a", "")))},
	{"surrounding spaces", "  {\"jsonrpc\":\"2.0\",\"method\":\"a\"}\t ", single(valid(notification("a", "")))},
	{"blank", "", Line{}},
	{"blank with spaces", " \t\r", Line{}},
	// Values that are not messages.
	{"string", `"hi"`, single(invalidItem(""))},
	{"number", `12`, single(invalidItem(""))},
	{"null", `null`, single(invalidItem(""))},
	{"empty object", `{}`, single(invalidItem(""))},
	{"empty array with spaces", `[ ]`, single(invalidItem(""))},
	{"non-object batch members", `[1,"x",null,[],{"jsonrpc":"2.0","method":"n"}]`, Line{Batch: true, Items: []Item{
		invalidItem(""), invalidItem(""), invalidItem(""), invalidItem(""), valid(notification("n", "")),
	}}},
	// jsonrpc member.
	{"no jsonrpc", `{"method":"a","id":1}`, single(invalidItem("1"))},
	{"jsonrpc 1.0", `{"jsonrpc":"1.0","method":"a","id":1}`, single(invalidItem("1"))},
	{"jsonrpc number", `{"jsonrpc":2.0,"method":"a","id":1}`, single(invalidItem("1"))},
	{"jsonrpc escaped", `{"jsonrpc":"2\u002e0","method":"a","id":1}`, single(valid(request("1", "a", "")))},
	// method member.
	{"method number", `{"jsonrpc":"2.0","method":1,"id":7}`, single(invalidItem("7"))},
	{"method null", `{"jsonrpc":"2.0","method":null,"id":7}`, single(invalidItem("7"))},
	{"method empty", `{"jsonrpc":"2.0","method":"","id":7}`, single(invalidItem("7"))},
	{"method escaped", `{"jsonrpc":"2.0","method":"a\/b\u00e9","id":7}`, single(valid(request("7", "a/bé", "")))},
	// Member names are case-sensitive.
	{"Method", `{"jsonrpc":"2.0","Method":"a","id":1}`, single(invalidItem("1"))},
	{"ID", `{"jsonrpc":"2.0","method":"a","ID":1}`, single(valid(notification("a", "")))},
	{"JSONRPC", `{"JSONRPC":"2.0","method":"a"}`, single(invalidItem(""))},
	{"escaped member name", `{"jsonrpc":"2.0","m\u0065thod":"a","id":1}`, single(valid(request("1", "a", "")))},
	{"unknown members ignored", `{"jsonrpc":"2.0","method":"a","id":1,"extra":{"x":[1]}}`, single(valid(request("1", "a", "")))},
	// id member: exact text; object, array and bool refused.
	{"big integer id", `{"jsonrpc":"2.0","method":"a","id":9007199254740993}`, single(valid(request("9007199254740993", "a", "")))},
	{"escaped string id", `{"jsonrpc":"2.0","method":"a","id":"a\"b"}`, single(valid(request(`"a\"b"`, "a", "")))},
	{"exponent id kept", `{"jsonrpc":"2.0","method":"a","id":1e400}`, single(valid(request("1e400", "a", "")))},
	{"fraction id kept", `{"jsonrpc":"2.0","method":"a","id":-1.50}`, single(valid(request("-1.50", "a", "")))},
	{"empty string id", `{"jsonrpc":"2.0","method":"a","id":""}`, single(valid(request(`""`, "a", "")))},
	{"object id", `{"jsonrpc":"2.0","method":"a","id":{"n":1}}`, single(invalidItem(""))},
	{"array id", `{"jsonrpc":"2.0","method":"a","id":[1]}`, single(invalidItem(""))},
	{"true id", `{"jsonrpc":"2.0","method":"a","id":true}`, single(invalidItem(""))},
	{"false id", `{"jsonrpc":"2.0","method":"a","id":false}`, single(invalidItem(""))},
	{"null id in a request", `{"jsonrpc":"2.0","method":"a","id":null}`, single(invalidItem(""))},
	// params member.
	{"params null is none", `{"jsonrpc":"2.0","method":"a","id":1,"params":null}`, single(valid(request("1", "a", "")))},
	// Any JSON value, as the reference's own batch example sends "params": 1.
	{"params string", `{"jsonrpc":"2.0","method":"a","id":1,"params":"x"}`, single(valid(request("1", "a", `"x"`)))},
	{"params number", `{"jsonrpc":"2.0","method":"a","id":1,"params":3}`, single(valid(request("1", "a", "3")))},
	{"params true", `{"jsonrpc":"2.0","method":"a","id":1,"params":true}`, single(valid(request("1", "a", "true")))},
	{"params false notification", `{"jsonrpc":"2.0","method":"a","params":false}`, single(valid(notification("a", "false")))},
	{"the reference's batch", `[{"jsonrpc":"2.0","id":8,"method":"echo","params":1},{"jsonrpc":"2.0","method":"log","params":{"level":"info","message":"ready"}}]`,
		Line{Batch: true, Items: []Item{valid(request("8", "echo", "1")), valid(notification("log", `{"level":"info","message":"ready"}`))}}},
	// Duplicate members.
	{"duplicate method", `{"jsonrpc":"2.0","method":"a","method":"b","id":1}`, single(invalidItem("1"))},
	{"duplicate id", `{"jsonrpc":"2.0","method":"a","id":1,"id":2}`, single(invalidItem("2"))},
	{"duplicate through an escape", `{"jsonrpc":"2.0","method":"a","\u006dethod":"b"}`, single(invalidItem(""))},
	{"duplicate unknown member", `{"jsonrpc":"2.0","method":"a","x":1,"x":2}`, single(valid(notification("a", "")))},
	// Responses.
	{"null result", `{"jsonrpc":"2.0","id":4,"result":null}`, single(valid(success("4", "null")))},
	{"string id answer", `{"jsonrpc":"2.0","id":"k","result":{"a":[1,{"b":"}"}]}}`, single(valid(success(`"k"`, `{"a":[1,{"b":"}"}]}`)))},
	{"result and error", `{"jsonrpc":"2.0","id":4,"result":1,"error":{"code":1,"message":"m"}}`, single(invalidItem("4"))},
	{"neither result nor error", `{"jsonrpc":"2.0","id":4}`, single(invalidItem("4"))},
	{"answer without id", `{"jsonrpc":"2.0","result":1}`, single(invalidItem(""))},
	{"success with null id", `{"jsonrpc":"2.0","id":null,"result":1}`, single(invalidItem(""))},
	{"error with null id", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		single(valid(&Message{Error: ErrParse}))},
	{"error with data", `{"jsonrpc":"2.0","id":2,"error":{"code":-32003,"message":"no","data":{"reason":"r"}}}`,
		single(valid(failure("2", &Error{Code: -32003, Message: "no", Data: raw(`{"reason":"r"}`)})))},
	{"error not an object", `{"jsonrpc":"2.0","id":2,"error":"bad"}`, single(invalidItem("2"))},
	{"error null", `{"jsonrpc":"2.0","id":2,"error":null}`, single(invalidItem("2"))},
	{"error without code", `{"jsonrpc":"2.0","id":2,"error":{"message":"m"}}`, single(invalidItem("2"))},
	{"error with fractional code", `{"jsonrpc":"2.0","id":2,"error":{"code":1.5,"message":"m"}}`, single(invalidItem("2"))},
	{"error with string code", `{"jsonrpc":"2.0","id":2,"error":{"code":"1","message":"m"}}`, single(invalidItem("2"))},
	{"error with huge code", `{"jsonrpc":"2.0","id":2,"error":{"code":1e99,"message":"m"}}`, single(invalidItem("2"))},
	{"error without message", `{"jsonrpc":"2.0","id":2,"error":{"code":1}}`, single(invalidItem("2"))},
	{"error with duplicate code", `{"jsonrpc":"2.0","id":2,"error":{"code":1,"code":2,"message":"m"}}`, single(invalidItem("2"))},
	{"answer with params", `{"jsonrpc":"2.0","id":2,"result":1,"params":[]}`, single(invalidItem("2"))},
	{"method and result", `{"jsonrpc":"2.0","id":2,"method":"a","result":1}`, single(invalidItem("2"))},
	{"method and error", `{"jsonrpc":"2.0","id":2,"method":"a","error":{"code":1,"message":"m"}}`, single(invalidItem("2"))},
	{"batch of answers", `[{"jsonrpc":"2.0","id":2,"result":1},{"jsonrpc":"2.0","id":1,"result":2}]`, Line{Batch: true, Items: []Item{
		valid(success("2", "1")), valid(success("1", "2")),
	}}},
	{"nested batch", `[[{"jsonrpc":"2.0","method":"a"}]]`, Line{Batch: true, Items: []Item{invalidItem("")}}},
}

func TestDecodeLine(t *testing.T) {
	for _, cases := range [][]decodeCase{specExamples, protocolRules} {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				got := DecodeLine([]byte(tc.line))
				if diff := cmp.Diff(tc.want, got, idComparer); diff != "" {
					t.Errorf("DecodeLine(%q) (-want +got):\n%s", tc.line, diff)
				}
			})
		}
	}
}

func TestDecodeLineDoesNotAliasInput(t *testing.T) {
	line := []byte(`{"jsonrpc":"2.0","method":"a","params":[1],"id":1}`)
	got := DecodeLine(line)
	for i := range line {
		line[i] = 'x'
	}
	want := single(valid(request("1", "a", "[1]")))
	if diff := cmp.Diff(want, got, idComparer); diff != "" {
		t.Errorf("decoded message changed with its input (-want +got):\n%s", diff)
	}
}

func TestDecodeLineDeepNesting(t *testing.T) {
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	line := `{"jsonrpc":"2.0","method":"a","params":` + deep + `}`
	got := DecodeLine([]byte(line))
	// encoding/json refuses nesting past 10000 levels.
	if diff := cmp.Diff(single(parseItem), got, idComparer); diff != "" {
		t.Errorf("DecodeLine(deep) (-want +got):\n%s", diff)
	}
}
