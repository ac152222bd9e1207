package jsonrpc

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMessageMarshalJSON(t *testing.T) {
	tests := []struct {
		name string
		msg  *Message
		want string
	}{
		{"request", request("1", "a/b", `{"x":1}`), `{"jsonrpc":"2.0","id":1,"method":"a/b","params":{"x":1}}`},
		{"request without params", request(`"s"`, "a", ""), `{"jsonrpc":"2.0","id":"s","method":"a"}`},
		{"notification", notification("log", `[1]`), `{"jsonrpc":"2.0","method":"log","params":[1]}`},
		{"success", success("9007199254740993", `"ok"`), `{"jsonrpc":"2.0","id":9007199254740993,"result":"ok"}`},
		{"success without result", &Message{ID: Int64ID(3)}, `{"jsonrpc":"2.0","id":3,"result":null}`},
		{"error has no result", &Message{ID: Int64ID(3), Result: raw("1"), Error: ErrInternal},
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Internal error"}}`},
		{"error to something unreadable", &Message{Error: ErrParse},
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`},
		{"error with reason", &Message{ID: StringID(`a"b`), Error: ErrForbidden.WithReason("no <b>")},
			`{"jsonrpc":"2.0","id":"a\"b","error":{"code":-32003,"message":"The plugin may not reach it.","data":{"reason":"no \u003cb\u003e"}}}`},
		{"method escaped", notification("a\"\\\n\x01é\xff<", ""), `{"jsonrpc":"2.0","method":"a\"\\\n\u0001é\ufffd<"}`},
		{"raw on several lines compacted", notification("a", "{\n \"x\": [1,\r\n 2]\n}"), `{"jsonrpc":"2.0","method":"a","params":{"x":[1,2]}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.msg.MarshalJSON()
			if err != nil {
				t.Fatalf("MarshalJSON: %v", err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("MarshalJSON (-want +got):\n%s", diff)
			}
			if !json.Valid(got) {
				t.Errorf("MarshalJSON wrote invalid JSON %s", got)
			}
		})
	}
}

func TestMessageMarshalRejectsInvalidRawOnSeveralLines(t *testing.T) {
	if _, err := notification("a", "{\n").MarshalJSON(); err == nil {
		t.Error("MarshalJSON of broken params on two lines: no error")
	}
}

func TestMessageKinds(t *testing.T) {
	tests := []struct {
		name string
		msg  *Message
		want [3]bool // request, notification, response
	}{
		{"request", request("1", "a", ""), [3]bool{true, false, false}},
		{"notification", notification("a", ""), [3]bool{false, true, false}},
		{"success", success("1", "2"), [3]bool{false, false, true}},
		{"null-id error", &Message{Error: ErrParse}, [3]bool{false, false, true}},
	}
	for _, tc := range tests {
		got := [3]bool{tc.msg.IsRequest(), tc.msg.IsNotification(), tc.msg.IsResponse()}
		if got != tc.want {
			t.Errorf("%s: request, notification, response = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestID(t *testing.T) {
	tests := []struct {
		name   string
		id     ID
		raw    string
		isZero bool
	}{
		{"zero", ID{}, "null", true},
		{"int", Int64ID(42), "42", false},
		{"negative int", Int64ID(-7), "-7", false},
		{"string", StringID("a\"b"), `"a\"b"`, false},
		{"string kept literal", StringID("<&>"), `"\u003c\u0026\u003e"`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := struct {
				Raw, String string
				IsZero      bool
			}{string(tc.id.Raw()), tc.id.String(), tc.id.IsZero()}
			want := struct {
				Raw, String string
				IsZero      bool
			}{tc.raw, tc.raw, tc.isZero}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			text, err := json.Marshal(tc.id)
			if err != nil || string(text) != tc.raw {
				t.Errorf("json.Marshal = %s, %v; want %s", text, err, tc.raw)
			}
		})
	}
}

func TestIDUnmarshalJSON(t *testing.T) {
	tests := []struct {
		in      string
		want    ID
		wantErr bool
	}{
		{`9007199254740993`, rawID("9007199254740993"), false},
		{`"a\"b"`, rawID(`"a\"b"`), false},
		{`1e400`, rawID("1e400"), false},
		{` 5 `, rawID("5"), false},
		{`null`, ID{}, false},
		{`true`, ID{}, true},
		{`{}`, ID{}, true},
		{`[1]`, ID{}, true},
		{`"unterminated`, ID{}, true},
		{`-`, ID{}, true},
		{``, ID{}, true},
	}
	for _, tc := range tests {
		var got ID
		err := got.UnmarshalJSON([]byte(tc.in))
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("UnmarshalJSON(%q) = %q, %v; want %q, error %v", tc.in, got.raw, err, tc.want.raw, tc.wantErr)
		}
	}
}

func TestErrorIsMatchesByCode(t *testing.T) {
	peer := &Error{Code: -32601, Message: "no such method: x"}
	tests := []struct {
		name   string
		err    error
		target error
		want   bool
	}{
		{"same code", peer, ErrMethodNotFound, true},
		{"other code", peer, ErrInvalidParams, false},
		{"wrapped", fmt.Errorf("call: %w", peer), ErrMethodNotFound, true},
		{"with reason", ErrNotYours.WithReason("k"), ErrNotYours, true},
		{"plain error", errors.New("Method not found"), ErrMethodNotFound, false},
		{"nil target", peer, (*Error)(nil), false},
	}
	for _, tc := range tests {
		if got := errors.Is(tc.err, tc.target); got != tc.want {
			t.Errorf("%s: errors.Is = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestErrorCodes holds the sentinels to the vocabulary's codes and
// messages, the ones services answer with (they had drifted: no period).
func TestErrorCodes(t *testing.T) {
	got := map[int64]string{}
	for _, e := range []*Error{ErrParse, ErrInvalidRequest, ErrMethodNotFound, ErrInvalidParams, ErrInternal,
		ErrNotYours, ErrKeychain, ErrForbidden, ErrFailed, ErrMissing} {
		got[e.Code] = e.Message
	}
	want := map[int64]string{
		-32700: "Parse error", -32600: "Invalid Request", -32601: "Method not found",
		-32602: "Invalid params", -32603: "Internal error",
		-32001: "This secret is not the plugin's.", -32002: "The keychain is out of reach.",
		-32003: "The plugin may not reach it.", -32004: "The request failed on the way.",
		-32005: "The file is missing.",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("codes (-want +got):\n%s", diff)
	}
}

func TestWithReasonLeavesSentinel(t *testing.T) {
	e := ErrForbidden.WithReason("example.org is not in permissions.network")
	if ErrForbidden.Data != nil {
		t.Errorf("WithReason changed the sentinel: data %s", ErrForbidden.Data)
	}
	if got, want := e.Reason(), "example.org is not in permissions.network"; got != want {
		t.Errorf("Reason() = %q, want %q", got, want)
	}
	if got := ErrForbidden.Reason(); got != "" {
		t.Errorf("Reason() of the sentinel = %q, want none", got)
	}
}

func TestWireError(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want *Error
	}{
		{"an *Error as is", ErrMissing, ErrMissing},
		{"wrapped keeps code and data, takes the text",
			fmt.Errorf("%w: key must not be empty", ErrInvalidParams.WithReason("r")),
			&Error{Code: -32602, Message: "Invalid params: key must not be empty", Data: raw(`{"reason":"r"}`)}},
		{"any other error", errors.New("disk on fire"), &Error{Code: -32603, Message: "disk on fire"}},
		{"empty message", &Error{Code: 7}, &Error{Code: 7}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, wireError(tc.err)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	if got, want := (&Error{Code: 7}).Error(), "JSON-RPC error 7"; got != want {
		t.Errorf("Error() without message = %q, want %q", got, want)
	}
}
