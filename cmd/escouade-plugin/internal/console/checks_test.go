package console

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/google/go-cmp/cmp"
)

// refusals runs lines through a console that has no plugin: every line
// must be refused before reaching it, and each refusal is one error line.
func refusals(t *testing.T, lines ...string) []string {
	t.Helper()
	var out bytes.Buffer
	c := &Console{}
	c.out = json.NewEncoder(&out)
	c.out.SetEscapeHTML(false)
	for _, l := range lines {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%q reached the plugin: %v", l, r)
				}
			}()
			c.handle(context.Background(), []byte(l))
		}()
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var e struct{ Op, Message string }
		if err := json.Unmarshal([]byte(l), &e); err != nil || e.Op != "error" {
			t.Errorf("output line %q is not an error", l)
		}
		got = append(got, e.Message)
	}
	return got
}

// TestParamsShape: attach params carry "agent" and must be an object;
// every other op sends params of any JSON value as given (the protocol's
// own example sends "params": 1), so only attach refuses. JSON-RPC lines
// that are answers or not messages are refused too, never sent.
func TestParamsShape(t *testing.T) {
	got := refusals(t,
		`{"op":"attach","agent":"a1","params":[1,2]}`,
		`{"op":"attach","agent":"a1","params":"x"}`,
		`{"jsonrpc":"2.0","id":1,"result":1}`,
		`[{"jsonrpc":"2.0","method":"m"},{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"m"}}]`,
		`[{"jsonrpc":"2.0","method":"m"},3]`,
		`[]`,
		`[{"jsonrpc":"2.0","method":"m"}`,
		`{"jsonrpc":"1.0","id":1,"method":"m"}`,
	)
	want := []string{
		`attach: "params" must be an object, not an array`,
		`attach: "params" must be an object, not a string`,
		`message: the message is an answer: the console sends requests and notifications`,
		`message: member 1 of the batch is an answer: the console sends requests and notifications`,
		`message: member 1 of the batch is not a JSON-RPC message: Invalid Request`,
		`message: the message is not a JSON-RPC message: Invalid Request`,
		`message: the message is not a JSON-RPC message: Parse error`,
		`message: the message is not a JSON-RPC message: Invalid Request`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("refusals (-want +got):\n%s", diff)
	}
}

// TestIDsAnsweredAsSent: an id that is not UTF-8, or a lone surrogate
// escape, decoded to U+FFFD and was answered under another id.
func TestIDsAnsweredAsSent(t *testing.T) {
	got := refusals(t,
		"{\"op\":\"call\",\"id\":\"c\xff1\",\"method\":\"m\"}",
		`{"op":"call","id":"c\ud800","method":"m"}`,
		`{"op":"call","id":"\udc00","method":"m"}`,
		`{"op":"batch","id":"b\uDBFF\u0041","calls":[{"method":"m"}]}`,
		`{"op":"attach","agent":"a\ud83d","params":{}}`,
	)
	want := []string{
		"not a command: the line is not valid UTF-8",
		`call: "id" holds a lone surrogate (\u escape), which is no character: it could not be answered as sent`,
		`call: "id" holds a lone surrogate (\u escape), which is no character: it could not be answered as sent`,
		`batch: "id" holds a lone surrogate (\u escape), which is no character: it could not be answered as sent`,
		`attach: "agent" holds a lone surrogate (\u escape), which is no character: it could not be answered as sent`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("refusals (-want +got):\n%s", diff)
	}
}

func TestHasLoneSurrogate(t *testing.T) {
	tests := map[string]bool{
		`"c1"`: false, `"\u00e9"`: false, `"\ud83d\ude00"`: false, `"\uD83D\uDE00"`: false,
		`"\\ud800"`: false, `"\\\ud800"`: true, `"\ud800"`: true, `"\udfff"`: true,
		`"\ud800\u0041"`: true, `"\ud800x"`: true, `"x\ud83d"`: true, `"\u12"`: false,
	}
	for raw, want := range tests {
		if got := hasLoneSurrogate([]byte(raw)); got != want {
			t.Errorf("hasLoneSurrogate(%s) = %v, want %v", raw, got, want)
		}
	}
}

func FuzzHasLoneSurrogate(f *testing.F) {
	f.Add("c1")
	f.Add("😀")
	f.Fuzz(func(t *testing.T, id string) {
		raw, _ := json.Marshal(id) // Go writes valid UTF-8 ids without surrogate escapes
		if hasLoneSurrogate(raw) {
			t.Fatalf("%s reported as holding a lone surrogate", raw)
		}
		var back string
		if err := json.Unmarshal(raw, &back); err == nil && utf8.ValidString(id) && id != back {
			t.Fatalf("round trip of %q gave %q", id, back)
		}
	})
}

// FuzzMessageLine: a JSON-RPC line typed into the console reaches the
// plugin exactly when every member is a request or a notification; what
// is not is refused with one error line, never sent.
func FuzzMessageLine(f *testing.F) {
	for _, seed := range []string{
		`[{"jsonrpc":"2.0","id":8,"method":"echo","params":1},{"jsonrpc":"2.0","method":"log","params":{"level":"info","message":"ready"}}]`,
		`{"jsonrpc":"2.0","id":7,"method":"echo","params":{"a":1}}`,
		`{"jsonrpc":"2.0","id":1,"result":1}`, `[]`, `[3]`, `{"jsonrpc":"2.0","method":""}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if !isMessageLine(line) {
			return
		}
		decoded := jsonrpc.DecodeLine(line)
		sendable := len(decoded.Items) > 0
		for _, item := range decoded.Items {
			sendable = sendable && item.Err == nil && item.Msg.Method != ""
		}
		var out bytes.Buffer
		c := &Console{}
		c.out = json.NewEncoder(&out)
		reached := func() (reached bool) {
			defer func() { reached = recover() != nil }() // no plugin: sending panics
			return c.message(context.Background(), line) == nil
		}()
		if reached != sendable {
			t.Fatalf("%q: reached the plugin %v, want %v", line, reached, sendable)
		}
	})
}
