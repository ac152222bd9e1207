package kit

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/google/go-cmp/cmp"
)

// FuzzDecodeInit checks that any params of initialize either decode or are
// refused with -32602, and that what decodes survives a round trip.
func FuzzDecodeInit(f *testing.F) {
	for _, seed := range []string{initializeParams, `{}`, `null`, `[]`, `{"protocolVersion":1.5}`,
		`{"capabilities":{"x":true,"y":null}}`, `{"plugin":{"id":3}}`, `"x"`, ``} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		got, err := decodeInit(params)
		if err != nil {
			if !errors.Is(err, jsonrpc.ErrInvalidParams) {
				t.Fatalf("decodeInit(%q): %v, not -32602", params, err)
			}
			return
		}
		again, err := decodeInit(mustJSON(t, got))
		if err != nil {
			t.Fatalf("round trip of %+v: %v", got, err)
		}
		if diff := cmp.Diff(got, again); diff != "" {
			t.Errorf("round trip (-first +second):\n%s", diff)
		}
	})
}

// FuzzDecode checks Decode's contract on any bytes: a -32602 error or a
// value, never a panic.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{`{"name":"Ada","ms":5}`, `{"ms":"5"}`, `[]`, `null`, `{"name":null}`, ``, `{`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		type greet struct {
			Name string `json:"name"`
			Ms   int    `json:"ms"`
		}
		_, err := Decode[greet](params)
		if err != nil && !errors.Is(err, jsonrpc.ErrInvalidParams) {
			t.Fatalf("Decode(%q): %v, not -32602", params, err)
		}
		if len(params) > 0 && err == nil && !json.Valid(params) {
			t.Fatalf("Decode(%q) accepted invalid JSON", params)
		}
	})
}

// FuzzRoute checks the routing policy on any method name: the kit's own
// methods and registered ones are served, events answer null, anything
// else is -32601; nothing panics.
func FuzzRoute(f *testing.F) {
	for _, seed := range []string{"t/echo", "initialize", "shutdown", "agent/attach", "event/", "event/x",
		"Initialize", "t/echo ", "", "event", "\x00", "notes/greet"} {
		f.Add(seed, []byte(`{"a":1}`))
	}
	f.Fuzz(func(t *testing.T, method string, params []byte) {
		p, _ := quietPlugin()
		p.Handle("t/echo", func(_ context.Context, params json.RawMessage) (any, error) { return params, nil })
		s := newSession(context.Background(), p)
		close(s.ready)
		defer s.stop()
		result, err := s.handle(context.Background(), &jsonrpc.Message{ID: jsonrpc.Int64ID(1), Method: method, Params: params})
		switch {
		case method == "t/echo":
			if err != nil || string(result.(json.RawMessage)) != string(params) {
				t.Errorf("t/echo gave %v, %v", result, err)
			}
		case method == methodInitialize:
			if err != nil && !errors.Is(err, jsonrpc.ErrInvalidParams) {
				t.Errorf("initialize: %v", err)
			}
		case method == methodShutdown || strings.HasPrefix(method, eventPrefix):
			if result != nil || err != nil {
				t.Errorf("%q gave %v, %v; want nil, nil", method, result, err)
			}
		default:
			if !errors.Is(err, jsonrpc.ErrMethodNotFound) {
				t.Errorf("%q gave %v, %v; want -32601", method, result, err)
			}
		}
	})
}

func TestReadEnv(t *testing.T) {
	got := ReadEnv(func(string) string { return "" })
	if diff := cmp.Diff(Env{}, got); diff != "" {
		t.Errorf("ReadEnv of nothing (-want +got):\n%s", diff)
	}
}
