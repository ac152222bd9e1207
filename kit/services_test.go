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

// serviceResult is what a handler calling one host service reports.
type serviceResult struct {
	Value any
	Code  int64 // the JSON-RPC code of the error, or 0
	Err   string
}

// callService runs call inside a handler of a plugin whose host answers
// with answer, and returns what the host was asked and what call gave.
func callService(t *testing.T, answer hostHandler, call func(ctx context.Context, p *Plugin) (any, error)) (asked string, got serviceResult) {
	t.Helper()
	p, _ := quietPlugin()
	p.Handle("t/run", func(ctx context.Context, _ json.RawMessage) (any, error) {
		v, err := call(ctx, p)
		got = serviceResult{Value: v}
		if err != nil {
			got = serviceResult{Code: errorCode(err), Err: err.Error()}
		}
		return nil, nil
	})
	h := startPlugin(t, p, func(m *jsonrpc.Message) (any, error) {
		asked = m.Method + " " + string(m.Params)
		return answer(m)
	})
	h.mustCall(t, "t/run", nil)
	return asked, got
}

func answerRaw(raw string) hostHandler {
	return func(*jsonrpc.Message) (any, error) { return json.RawMessage(raw), nil }
}

func answerError(e *jsonrpc.Error) hostHandler {
	return func(*jsonrpc.Message) (any, error) { return nil, e }
}

func TestSecret(t *testing.T) {
	type secret struct {
		Value string
		Found bool
	}
	tests := []struct {
		name   string
		key    string
		answer hostHandler
		want   serviceResult
	}{
		{"kept", "token", answerRaw(`"s3cret"`), serviceResult{Value: secret{"s3cret", true}}},
		{"empty string is kept", "token", answerRaw(`""`), serviceResult{Value: secret{"", true}}},
		{"none kept", "token", answerRaw(`null`), serviceResult{Value: secret{"", false}}},
		{"not the plugin's", "plugin:dev.other:token", answerError(jsonrpc.ErrNotYours), serviceResult{Code: -32001, Err: "This secret is not the plugin's."}},
		{"keychain out of reach", "token", answerError(jsonrpc.ErrKeychain), serviceResult{Code: -32002, Err: "The keychain is out of reach."}},
		{"a number", "token", answerRaw(`42`), serviceResult{Err: "kit: secrets/get answered 42, not a string or null"}},
		{"an object", "token", answerRaw(`{"v":"x"}`), serviceResult{Err: `kit: secrets/get answered {"v":"x"}, not a string or null`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked, got := callService(t, tt.answer, func(ctx context.Context, p *Plugin) (any, error) {
				value, found, err := p.Secret(ctx, tt.key)
				return secret{value, found}, err
			})
			wantAsked := `secrets/get {"key":` + string(mustJSON(t, tt.key)) + `}`
			if diff := cmp.Diff(wantAsked, asked); diff != "" {
				t.Errorf("asked (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Secret (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSettings(t *testing.T) {
	tests := []struct {
		name      string
		project   string
		answer    hostHandler
		wantAsked string
		want      serviceResult
	}{
		{"user values", "", answerRaw(`{"greeting":"Hi","shout":true}`), `settings/get {}`,
			serviceResult{Value: map[string]any{"greeting": "Hi", "shout": true}}},
		{"project values", "p1", answerRaw(`{}`), `settings/get {"project":"p1"}`,
			serviceResult{Value: map[string]any{}}},
		{"null", "", answerRaw(`null`), `settings/get {}`,
			serviceResult{Err: "kit: settings/get answered null, not an object"}},
		{"an array", "", answerRaw(`[1]`), `settings/get {}`,
			serviceResult{Err: "kit: settings/get answered [1], not an object"}},
		{"invalid params", "p1", answerError(jsonrpc.ErrInvalidParams), `settings/get {"project":"p1"}`,
			serviceResult{Code: -32602, Err: "Invalid params"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked, got := callService(t, tt.answer, func(ctx context.Context, p *Plugin) (any, error) {
				return p.Settings(ctx, tt.project)
			})
			if diff := cmp.Diff(tt.wantAsked, asked); diff != "" {
				t.Errorf("asked (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Settings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadFile(t *testing.T) {
	long := `"` + strings.Repeat("x", 100) + `"`
	tests := []struct {
		name   string
		answer hostHandler
		want   serviceResult
	}{
		{"text", answerRaw(`"one\ntwo\n"`), serviceResult{Value: "one\ntwo\n"}},
		{"missing", answerError(jsonrpc.ErrMissing), serviceResult{Code: -32005, Err: "The file is missing."}},
		{"forbidden", answerError(jsonrpc.ErrForbidden.WithReason("hidden")), serviceResult{Code: -32003, Err: "The plugin may not reach it. (hidden)"}}, // the host's reason kept
		{"too large", answerError(jsonrpc.ErrFailed), serviceResult{Code: -32004, Err: "The request failed on the way."}},
		{"null", answerRaw(`null`), serviceResult{Value: ""}},
		{"a number", answerRaw(`1`), serviceResult{Err: "kit: files/read answered 1, not a string"}},
		{"a long object", answerRaw(`[` + long + `]`), serviceResult{Err: "kit: files/read answered [" + long[:79] + "…, not a string"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked, got := callService(t, tt.answer, func(ctx context.Context, p *Plugin) (any, error) {
				return p.ReadFile(ctx, "data/words.txt")
			})
			if diff := cmp.Diff(`files/read {"path":"data/words.txt"}`, asked); diff != "" {
				t.Errorf("asked (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ReadFile (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLog(t *testing.T) {
	p, stderr := quietPlugin()
	p.Handle("t/log", func(_ context.Context, params json.RawMessage) (any, error) {
		in, err := Decode[struct{ Level, Message string }](params)
		p.Log(in.Level, in.Message)
		return nil, err
	})
	h := startPlugin(t, p, nil)
	tests := []struct{ level, message, want string }{
		{LevelDebug, "d", `{"level":"debug","message":"d"}`},
		{LevelInfo, "two\nlines", `{"level":"info","message":"two\nlines"}`},
		{LevelWarn, "w", `{"level":"warn","message":"w"}`},
		{LevelError, "e", `{"level":"error","message":"e"}`},
		{"fatal", "f", `{"level":"info","message":"f"}`},
		{"", "empty level", `{"level":"info","message":"empty level"}`},
	}
	for _, tt := range tests {
		h.mustCall(t, "t/log", map[string]string{"level": tt.level, "message": tt.message})
		note := h.nextNote(t)
		if diff := cmp.Diff("log "+tt.want, note.Method+" "+string(note.Params)); diff != "" {
			t.Errorf("Log(%q, %q) (-want +got):\n%s", tt.level, tt.message, diff)
		}
	}
	if !strings.Contains(stderr.String(), `kit: log level "fatal" is not debug, info, warn or error: sent as info`) {
		t.Errorf("stderr lacks the trace of a bad level:\n%s", stderr)
	}
}

// TestNotConnected checks the services outside Serve: calls fail and logs
// go to stderr.
func TestNotConnected(t *testing.T) {
	p, stderr := quietPlugin()
	ctx := context.Background()
	if _, _, err := p.Secret(ctx, "token"); !errors.Is(err, ErrNotConnected) {
		t.Errorf("Secret: %v, want ErrNotConnected", err)
	}
	if _, err := p.Settings(ctx, ""); !errors.Is(err, ErrNotConnected) {
		t.Errorf("Settings: %v, want ErrNotConnected", err)
	}
	if _, err := p.ReadFile(ctx, "a.txt"); !errors.Is(err, ErrNotConnected) {
		t.Errorf("ReadFile: %v, want ErrNotConnected", err)
	}
	p.Log(LevelWarn, "early bird")
	if diff := cmp.Diff("kit: log.warn early bird\n", stderr.String()); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
