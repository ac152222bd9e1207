package jsonrpc

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

const (
	parseAnswer   = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`
	invalidAnswer = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`
)

func TestConnAnswersPeerLines(t *testing.T) {
	const maxLine = 300
	tooLong := `{"jsonrpc":"2.0","method":"note","params":["` + strings.Repeat("x", maxLine+1) + `"]}`
	mixed := `[{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]},` +
		`{"jsonrpc":"2.0","method":"note"},{"jsonrpc":"2.0","id":"x","method":"nope"},{"foo":"boo"},` +
		`{"jsonrpc":"2.0","id":3,"method":"boom"}]`
	tests := []struct {
		name    string
		line    string
		answers []string
		events  []Event
	}{
		{"not JSON", "hello", []string{parseAnswer}, []Event{{Kind: EventBadLine, Text: "hello"}}},
		{"trailing data", `{"jsonrpc":"2.0","method":"note"} x`, []string{parseAnswer},
			[]Event{{Kind: EventBadLine, Text: `{"jsonrpc":"2.0","method":"note"} x`}}},
		{"invalid UTF-8", "\"\xff\"", []string{parseAnswer}, []Event{{Kind: EventBadLine, Text: "\"\xff\""}}},
		{"over-long line", tooLong, []string{parseAnswer}, []Event{{Kind: EventTooLong, Text: tooLong[:ExcerptLen]}}},
		{"blank line", "  \r", nil, nil},
		{"big integer id echoed", `{"jsonrpc":"2.0","id":9007199254740993,"method":"echo","params":[1]}`,
			[]string{`{"jsonrpc":"2.0","id":9007199254740993,"result":[1]}`}, nil},
		{"string id echoed", `{"jsonrpc":"2.0","id":"a\"b\u00e9","method":"echo"}`,
			[]string{`{"jsonrpc":"2.0","id":"a\"b\u00e9","result":null}`}, nil},
		{"exponent id echoed", `{"jsonrpc":"2.0","id":1e400,"method":"echo","params":{"a":1}}`,
			[]string{`{"jsonrpc":"2.0","id":1e400,"result":{"a":1}}`}, nil},
		{"CRLF", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"echo\"}\r",
			[]string{`{"jsonrpc":"2.0","id":1,"result":null}`}, nil},
		{"invalid message with id", `{"jsonrpc":"1.0","id":7,"method":"echo"}`,
			[]string{`{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid Request"}}`},
			[]Event{{Kind: EventBadLine, Text: `{"jsonrpc":"1.0","id":7,"method":"echo"}`}}},
		{"empty array", `[]`, []string{invalidAnswer}, []Event{{Kind: EventBadLine, Text: "[]"}}},
		{"invalid batch", `[1,2,3]`, []string{"[" + strings.Repeat(invalidAnswer+",", 2) + invalidAnswer + "]"},
			[]Event{{Kind: EventBadLine, Text: "[1,2,3]"}}},
		{"method not found", `{"jsonrpc":"2.0","id":2,"method":"nope"}`,
			[]string{`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}`}, nil},
		{"error with reason", `{"jsonrpc":"2.0","id":2,"method":"forbidden"}`,
			[]string{`{"jsonrpc":"2.0","id":2,"error":{"code":-32003,"message":"The plugin may not reach it.","data":{"reason":"example.org is not in permissions.network of dev.escouade.slack"}}}`}, nil},
		{"wrapped error", `{"jsonrpc":"2.0","id":2,"method":"wrapped"}`,
			[]string{`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid params: key is empty"}}`}, nil},
		{"plain error", `{"jsonrpc":"2.0","id":2,"method":"boom"}`,
			[]string{`{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"disk on fire"}}`}, nil},
		{"unencodable result", `{"jsonrpc":"2.0","id":2,"method":"unencodable"}`,
			[]string{`{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"json: unsupported type: func()"}}`}, nil},
		{"notification", `{"jsonrpc":"2.0","method":"note"}`, nil, nil},
		{"mixed batch answered as one array", mixed,
			[]string{`[{"jsonrpc":"2.0","id":1,"result":[1]},` +
				`{"jsonrpc":"2.0","id":"x","error":{"code":-32601,"message":"Method not found"}},` +
				invalidAnswer + "," +
				`{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"disk on fire"}}]`},
			[]Event{{Kind: EventBadLine, Text: mixed}}},
		{"batch of notifications gets nothing", `[{"jsonrpc":"2.0","method":"note"},{"jsonrpc":"2.0","method":"note"}]`, nil, nil},
		{"answers to nothing", `[{"jsonrpc":"2.0","id":5,"result":1},{"jsonrpc":"2.0","id":"s","error":{"code":1,"message":"m"}}]`, nil,
			[]Event{{Kind: EventUnknownResponse, ID: rawID("5")},
				{Kind: EventUnknownResponse, ID: rawID(`"s"`), Err: &Error{Code: 1, Message: "m"}}}},
		{"peer error with null id", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, nil,
			[]Event{{Kind: EventPeerError, Text: "Parse error", Err: ErrParse}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPeer(t, Options{MaxLine: maxLine})
			p.send(tc.line)
			var got []string
			for range tc.answers {
				got = append(got, canonical(p.next()))
			}
			p.sync()
			want := make([]string, len(tc.answers))
			for i, a := range tc.answers {
				want[i] = canonical(a)
			}
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("answers to %q (-want +got):\n%s", tc.line, diff)
			}
			if diff := cmp.Diff(tc.events, p.takeEvents(), idComparer, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConnWithoutHandlerAnswersMethodNotFound(t *testing.T) {
	p := startPeer(t, Options{}, false)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"echo"}`)
	want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`
	if got := p.next(); got != want {
		t.Errorf("answer %s, want %s", got, want)
	}
}
