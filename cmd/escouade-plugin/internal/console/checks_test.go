package console

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

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

// TestParamsShape: params that are not an object or an array were sent to
// the plugin as they were, breaking JSON-RPC.
func TestParamsShape(t *testing.T) {
	got := refusals(t,
		`{"op":"call","id":"c1","method":"m","params":"text"}`,
		`{"op":"call","id":"c1","method":"m","params":3}`,
		`{"op":"call","id":"c1","method":"m","params":true}`,
		`{"op":"notify","method":"m","params":false}`,
		`{"op":"fact","name":"ticket.column","params":1.5}`,
		`{"op":"batch","id":"b1","calls":[{"method":"m","params":"x"}]}`,
		`{"op":"attach","agent":"a1","params":[1,2]}`,
		`{"op":"attach","agent":"a1","params":"x"}`,
	)
	want := []string{
		`call: "params" must be an object or an array, not a string`,
		`call: "params" must be an object or an array, not a number`,
		`call: "params" must be an object or an array, not a boolean`,
		`notify: "params" must be an object or an array, not a boolean`,
		`fact: "params" must be an object or an array, not a number`,
		`batch: "calls[0].params" must be an object or an array, not a string`,
		`attach: "params" must be an object, not an array`,
		`attach: "params" must be an object, not a string`,
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
