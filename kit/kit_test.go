package kit

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/google/go-cmp/cmp"
)

const initializeParams = `{"protocolVersion":1,"escouade":{"version":"2.2.0"},
	"plugin":{"id":"dev.escouade.test","version":"1.1.0"},"lang":"fr",
	"capabilities":{"batch":true,"secrets":true,"settings":true,"log":true,"attach":true}}`

// TestSession plays a whole life: initialize, a call that asks the host for
// a secret and logs, then shutdown, after which Serve returns.
func TestSession(t *testing.T) {
	p, _ := quietPlugin()
	p.Handle("notes/greet", func(ctx context.Context, params json.RawMessage) (any, error) {
		in, err := Decode[struct{ Name string }](params)
		if err != nil {
			return nil, err
		}
		_, found, err := p.Secret(ctx, "token")
		if err != nil {
			return nil, err
		}
		p.Log(LevelInfo, "greeted "+in.Name)
		return map[string]any{"text": "Hello, " + in.Name + "!", "token": found}, nil
	})
	var asked []string
	h := startPlugin(t, p, func(m *jsonrpc.Message) (any, error) {
		asked = append(asked, m.Method+" "+string(m.Params))
		return "s3cret", nil
	})

	got := h.mustCall(t, "initialize", json.RawMessage(initializeParams))
	if diff := cmp.Diff(`{"protocolVersion":1,"capabilities":{"attach":false,"batch":true}}`, got); diff != "" {
		t.Errorf("initialize (-want +got):\n%s", diff)
	}
	wantInit := InitParams{
		ProtocolVersion: 1,
		Escouade:        AppInfo{Version: "2.2.0"},
		Plugin:          PluginInfo{ID: "dev.escouade.test", Version: "1.1.0"},
		Lang:            "fr",
		Capabilities:    Capabilities{"batch": true, "secrets": true, "settings": true, "log": true, "attach": true},
	}
	if diff := cmp.Diff(wantInit, p.Init()); diff != "" {
		t.Errorf("Init (-want +got):\n%s", diff)
	}

	got = h.mustCall(t, "notes/greet", map[string]string{"name": "Ada"})
	if diff := cmp.Diff(`{"text":"Hello, Ada!","token":true}`, got); diff != "" {
		t.Errorf("notes/greet (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{`secrets/get {"key":"token"}`}, asked); diff != "" {
		t.Errorf("calls to the host (-want +got):\n%s", diff)
	}
	log := h.nextNote(t)
	if diff := cmp.Diff(`log {"level":"info","message":"greeted Ada"}`, log.Method+" "+string(log.Params)); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}

	if got := h.mustCall(t, "shutdown", nil); got != "null" {
		t.Errorf("shutdown answered %s, want null", got)
	}
	if err := h.waitServed(t); err != nil {
		t.Errorf("Serve after shutdown: %v", err)
	}
}

func TestInitializeAnswer(t *testing.T) {
	tests := []struct {
		name     string
		attach   bool
		params   string
		want     string
		wantCode int64
	}{
		{name: "no attach handler", params: initializeParams,
			want: `{"protocolVersion":1,"capabilities":{"attach":false,"batch":true}}`},
		{name: "attach handler", attach: true, params: initializeParams,
			want: `{"protocolVersion":1,"capabilities":{"attach":true,"batch":true}}`},
		{name: "params omitted", params: ``,
			want: `{"protocolVersion":1,"capabilities":{"attach":false,"batch":true}}`},
		{name: "another version is answered with ours", params: `{"protocolVersion":2}`,
			want: `{"protocolVersion":1,"capabilities":{"attach":false,"batch":true}}`},
		{name: "params an array", params: `[1]`, wantCode: -32602},
		{name: "lang not a string", params: `{"lang":3}`, wantCode: -32602},
		{name: "capability not a boolean", params: `{"capabilities":{"batch":"yes"}}`, wantCode: -32602},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _ := quietPlugin()
			if tt.attach {
				p.OnAttach(func(context.Context, json.RawMessage) (any, error) { return nil, nil })
			}
			h := startPlugin(t, p, nil)
			var params any
			if tt.params != "" {
				params = json.RawMessage(tt.params)
			}
			got, err := h.call(t, "initialize", params)
			if code := errorCode(err); code != tt.wantCode {
				t.Fatalf("initialize: error %v (code %d), want code %d", err, code, tt.wantCode)
			}
			if diff := cmp.Diff(tt.want, string(got)); err == nil && diff != "" {
				t.Errorf("initialize (-want +got):\n%s", diff)
			}
		})
	}
}

func TestInitBeforeInitialize(t *testing.T) {
	env := ReadEnv(func(name string) string {
		return map[string]string{
			EnvPluginID: "dev.escouade.test", EnvPluginAPI: "1", EnvAppVersion: "2.2.0", EnvLang: "en",
		}[name]
	})
	p := NewWithOptions(Options{Env: env})
	want := InitParams{
		ProtocolVersion: 1,
		Escouade:        AppInfo{Version: "2.2.0"},
		Plugin:          PluginInfo{ID: "dev.escouade.test"},
		Lang:            "en",
	}
	if diff := cmp.Diff(want, p.Init()); diff != "" {
		t.Errorf("Init (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Env{PluginID: "dev.escouade.test", API: "1", AppVersion: "2.2.0", Lang: "en"}, p.Env()); diff != "" {
		t.Errorf("Env (-want +got):\n%s", diff)
	}
	if got := NewWithOptions(Options{Env: Env{API: "2"}}).Init().ProtocolVersion; got != 0 {
		t.Errorf("Init().ProtocolVersion with API 2 = %d, want 0 (unknown until initialize)", got)
	}
}

// TestRouting checks what the plugin answers for each kind of method.
func TestRouting(t *testing.T) {
	p, stderr := quietPlugin()
	p.Handle("t/echo", func(_ context.Context, params json.RawMessage) (any, error) { return params, nil })
	p.Handle("t/nothing", func(context.Context, json.RawMessage) (any, error) { return nil, nil })
	p.Handle("t/forbidden", func(context.Context, json.RawMessage) (any, error) {
		return nil, fmt.Errorf("%w: not that one", jsonrpc.ErrForbidden)
	})
	p.Handle("t/plain-error", func(context.Context, json.RawMessage) (any, error) {
		return nil, fmt.Errorf("disk on fire")
	})
	p.Handle("t/panic", func(context.Context, json.RawMessage) (any, error) { panic("boom") })
	p.Handle("t/decode", func(_ context.Context, params json.RawMessage) (any, error) {
		return Decode[struct{ N int }](params)
	})
	p.Handle("t/unmarshalable", func(context.Context, json.RawMessage) (any, error) { return func() {}, nil })
	h := startPlugin(t, p, nil)

	tests := []struct {
		method, params string
		want           string
		wantCode       int64
		wantMessage    string
	}{
		{method: "t/echo", params: `{"a":[1,2,{"b":null}]}`, want: `{"a":[1,2,{"b":null}]}`},
		{method: "t/echo", params: `[1,"x"]`, want: `[1,"x"]`},
		{method: "t/nothing", want: `null`},
		{method: "t/forbidden", wantCode: -32003, wantMessage: "The plugin may not reach it.: not that one"},
		{method: "t/plain-error", wantCode: -32603, wantMessage: "disk on fire"},
		{method: "t/panic", wantCode: -32603, wantMessage: "Internal error: t/panic panicked"},
		{method: "t/decode", params: `{"N":"seven"}`, wantCode: -32602},
		{method: "t/decode", params: `{"N":7}`, want: `{"N":7}`},
		{method: "t/unmarshalable", wantCode: -32603},
		{method: "t/unknown", wantCode: -32601, wantMessage: "Method not found"},
		{method: "T/ECHO", wantCode: -32601, wantMessage: "Method not found"},
		{method: "agent/attach", params: `{"agent":"a1"}`, wantCode: -32601},
		{method: "event/ticket.column", params: `{}`, want: `null`},
	}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			var params any
			if tt.params != "" {
				params = json.RawMessage(tt.params)
			}
			got, err := h.call(t, tt.method, params)
			if code := errorCode(err); code != tt.wantCode {
				t.Fatalf("error %v (code %d), want code %d", err, code, tt.wantCode)
			}
			if err != nil {
				if tt.wantMessage != "" && err.Error() != tt.wantMessage {
					t.Errorf("message %q, want %q", err.Error(), tt.wantMessage)
				}
				return
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
		})
	}
	if got := h.mustCall(t, "t/echo", json.RawMessage(`{"still":"alive"}`)); got != `{"still":"alive"}` {
		t.Errorf("after a panic the plugin answered %s", got)
	}
	if !strings.Contains(stderr.String(), "kit: t/panic panicked: boom") {
		t.Errorf("stderr lacks the panic trace:\n%s", stderr)
	}
}

func TestAttach(t *testing.T) {
	p, _ := quietPlugin()
	p.OnAttach(func(_ context.Context, params json.RawMessage) (any, error) {
		return map[string]json.RawMessage{"attached": params}, nil
	})
	h := startPlugin(t, p, nil)
	got := h.mustCall(t, "agent/attach", json.RawMessage(`{"agent":"a1","mode":"plan"}`))
	if diff := cmp.Diff(`{"attached":{"agent":"a1","mode":"plan"}}`, got); diff != "" {
		t.Errorf("agent/attach (-want +got):\n%s", diff)
	}
}

// TestEvents checks that events reach their handler in order, that an
// event without handler is ignored, and that an event handler may call the
// host.
func TestEvents(t *testing.T) {
	p, _ := quietPlugin()
	seen := make(chan string, 8)
	p.OnEvent("ticket.column", func(ctx context.Context, params json.RawMessage) {
		settings, err := p.Settings(ctx, "")
		seen <- fmt.Sprintf("%s %v %v", params, settings, err)
	})
	h := startPlugin(t, p, func(m *jsonrpc.Message) (any, error) {
		return map[string]any{"shout": true}, nil
	})
	for _, note := range []struct{ method, params string }{
		{"event/ticket.column", `{"n":1}`},
		{"event/unheard", `{"n":2}`},
		{"event/ticket.column", `{"n":3}`},
	} {
		if err := h.conn.Notify(note.method, json.RawMessage(note.params)); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for range 2 {
		got = append(got, <-seen)
	}
	want := []string{`{"n":1} map[shout:true] <nil>`, `{"n":3} map[shout:true] <nil>`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}
