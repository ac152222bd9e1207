package acp

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestStartSendsInitialize(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"defaults", Options{},
			`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":false,"writeTextFile":false},"terminal":false},"clientInfo":{"name":"escouade","version":"0.0.0"}}}`},
		{"fs and name", Options{FS: true, ClientName: "app", ClientVersion: "2.1.0"},
			`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":false},"clientInfo":{"name":"app","version":"2.1.0"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewClient(tt.opts)
			diff(t, "first lines", []string{tt.want}, texts(c.Start()))
			diff(t, "second Start", []string(nil), texts(c.Start()))
		})
	}
}

func TestInitializeAnswer(t *testing.T) {
	closed := Item{Type: TypeClosed}
	tests := []struct {
		name      string
		answer    string
		wantItems []Item
		wantOuts  []string
		wantEnded bool
	}{
		{"version 1", initOK, nil,
			[]string{`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/p","mcpServers":[]}}`}, false},
		{"version 2", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":2}}`,
			[]Item{notice("it speaks ACP version 2; this client speaks version 1"), closed}, nil, true},
		{"version as text", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"1.1"}}`,
			[]Item{notice("it speaks ACP version 1.1; this client speaks version 1"), closed}, nil, true},
		{"no version", `{"jsonrpc":"2.0","id":0,"result":{}}`,
			[]Item{notice("it speaks ACP version none; this client speaks version 1"), closed}, nil, true},
		{"error", `{"jsonrpc":"2.0","id":0,"error":{"code":-32603,"message":"boom"}}`,
			[]Item{notice("the agent refused to start: initialize failed: boom (code -32603)"), closed}, nil, true},
		{"result not an object", `{"jsonrpc":"2.0","id":0,"result":[1]}`,
			[]Item{notice("the agent's initialize answer is not understood: json: cannot unmarshal array into Go value of type acp.initializeResult"), unknown(raw(`[1]`)), closed}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewClient(Options{Cwd: "/p"})
			c.Start()
			items, outs := feed(c, tt.answer)
			diff(t, "items", tt.wantItems, items)
			diff(t, "outs", tt.wantOuts, outs)
			if c.Ended() != tt.wantEnded {
				t.Errorf("Ended() = %v, want %v", c.Ended(), tt.wantEnded)
			}
		})
	}
}

func TestMCPServersByCapability(t *testing.T) {
	httpServer := raw(`{"type":"http","name":"escouade","url":"http://127.0.0.1:1/mcp","headers":[]}`)
	stdioServer := raw(`{"name":"escouade","command":"/bin/esc","args":["mcp"],"env":[]}`)
	tests := []struct {
		name      string
		caps      string
		servers   []MCPServer
		wantItems []Item
		wantOut   string
	}{
		{"http taken", `{"mcpCapabilities":{"http":true}}`, []MCPServer{{Server: httpServer, Fallback: stdioServer}},
			nil, `[` + string(httpServer) + `]`},
		{"http not taken: fallback", `{}`, []MCPServer{{Server: httpServer, Fallback: stdioServer}},
			nil, `[` + string(stdioServer) + `]`},
		{"http not taken, no fallback", `{}`, []MCPServer{{Server: httpServer}},
			[]Item{notice("the agent takes no http MCP server: escouade is left out")}, `[]`},
		{"sse needs sse", `{"mcpCapabilities":{"http":true}}`, []MCPServer{{Server: raw(`{"type":"sse","name":"x","url":"u","headers":[]}`)}},
			[]Item{notice("the agent takes no sse MCP server: x is left out")}, `[]`},
		{"stdio always", `{}`, []MCPServer{{Server: stdioServer}}, nil, `[` + string(stdioServer) + `]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewClient(Options{Cwd: "/p", MCPServers: tt.servers})
			c.Start()
			items, outs := feed(c, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":`+tt.caps+`}}`)
			diff(t, "items", tt.wantItems, items)
			want := `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/p","mcpServers":` + tt.wantOut + `}}`
			diff(t, "outs", []string{want}, outs)
		})
	}
}

func TestNewSessionAnswer(t *testing.T) {
	withAuth := `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"authMethods":[{"id":"login","name":"Log in with the browser"},{"id":"key"}]}}`
	closed := Item{Type: TypeClosed}
	tests := []struct {
		name   string
		init   string
		answer string
		want   []Item
	}{
		{"auth required", withAuth, `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"Authentication required"}}`,
			[]Item{notice("the agent needs you to log in: run its own login command in a terminal (it offers: Log in with the browser, key), then start it again"), closed}},
		{"auth required without methods", initOK, `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"auth"}}`,
			[]Item{notice("the agent needs you to log in: run its own login command in a terminal, then start it again"), closed}},
		{"other error", withAuth, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"disk full"}}`,
			[]Item{notice("the agent could not open a session: disk full (code -32603)"), closed}},
		{"no session id", initOK, `{"jsonrpc":"2.0","id":1,"result":{}}`,
			[]Item{notice("the agent's session/new answer holds no session id"), unknown(raw(`{}`)), closed}},
		{"session with modes and config kept raw", initOK,
			`{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s9","modes":{"currentModeId":"ask","availableModes":[]},"models":{"currentModelId":"m"},"configOptions":[{"id":"mode","name":"Mode","category":"mode","type":"select","currentValue":"ask","options":[]}]}}`,
			[]Item{{Type: TypeSession, SessionID: "s9", Attach: AttachNew,
				Modes:         raw(`{"currentModeId":"ask","availableModes":[]}`),
				Models:        raw(`{"currentModelId":"m"}`),
				ConfigOptions: raw(`[{"id":"mode","name":"Mode","category":"mode","type":"select","currentValue":"ask","options":[]}]`)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewClient(Options{Cwd: "/p"})
			c.Start()
			feed(c, tt.init)
			items, _ := feed(c, tt.answer)
			diff(t, "items", tt.want, items)
		})
	}
}

func TestUpdatesBeforeTheSessionAreBuffered(t *testing.T) {
	c := NewClient(Options{Cwd: "/p"})
	c.Start()
	items, _ := feed(c, initOK,
		updateLine(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"early"}}`),
		updateLine(`{"sessionUpdate":"current_mode_update","currentModeId":"code"}`))
	diff(t, "items before session/new answers", []Item(nil), items)
	items, _ = feed(c, newSession)
	want := []Item{
		{Type: TypeSession, SessionID: "s1", Attach: AttachNew},
		{Type: TypeText, MessageID: "m1", Text: "early"},
		{Type: TypeMode, Mode: "code"},
	}
	diff(t, "items after", want, items)

	other := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"zz","update":{"sessionUpdate":"plan","entries":[]}}}`
	items, _ = feed(c, other)
	diff(t, "update of another session", []Item{unknown(raw(`{"sessionId":"zz","update":{"sessionUpdate":"plan","entries":[]}}`))}, items)
}

func TestBufferKeepsItsBound(t *testing.T) {
	c := NewClient(Options{MaxBufferedUpdates: 2})
	c.Start()
	feed(c, initOK)
	var items []Item
	for _, n := range []string{"1", "2", "3"} {
		it, _ := feed(c, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"later","update":{"n":`+n+`}}}`)
		items = append(items, it...)
	}
	diff(t, "oldest given out", []Item{unknown(raw(`{"sessionId":"later","update":{"n":1}}`))}, items)
}

func TestLinesThatAreNotACP(t *testing.T) {
	tests := []struct {
		name      string
		line      string
		wantItems []Item
		wantOuts  []string
	}{
		{"empty", "   ", nil, nil},
		{"not JSON", "Starting agent...", []Item{notice(`the agent wrote a line that is not JSON (invalid character 'S' looking for beginning of value): "Starting agent..."`)}, nil},
		{"not JSON-RPC", `{"hello":1}`, []Item{notice("the agent sent a message that is not JSON-RPC"), unknown(raw(`{"hello":1}`))}, nil},
		{"unknown notification", `{"jsonrpc":"2.0","method":"cursor/x","params":{}}`, []Item{unknown(raw(`{"jsonrpc":"2.0","method":"cursor/x","params":{}}`))}, nil},
		{"unknown request", `{"jsonrpc":"2.0","id":"q","method":"terminal/create","params":{}}`,
			[]Item{unknown(raw(`{"jsonrpc":"2.0","id":"q","method":"terminal/create","params":{}}`))},
			[]string{`{"jsonrpc":"2.0","id":"q","error":{"code":-32601,"message":"method not found: terminal/create"}}`}},
		{"answer to nothing", `{"jsonrpc":"2.0","id":77,"result":{}}`, []Item{unknown(raw(`{"jsonrpc":"2.0","id":77,"result":{}}`))}, nil},
		{"update without update", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1"}}`,
			[]Item{notice("the agent sent a session/update without an update"), unknown(raw(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1"}}`))}, nil},
		{"batch", `[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method":"b"}]`,
			[]Item{unknown(raw(`{"jsonrpc":"2.0","method":"a"}`)), unknown(raw(`{"jsonrpc":"2.0","method":"b"}`))}, nil},
		{"broken batch", `[{]`, []Item{notice(`the agent wrote a line that is not JSON (invalid character ']' looking for beginning of object key string): "[{]"`)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ready(t, Options{}, initOK)
			items, outs := feed(c, tt.line)
			diff(t, "items", tt.wantItems, items)
			diff(t, "outs", tt.wantOuts, outs)
		})
	}
}

func TestGarbageNoticeQuotesAtMostALinePart(t *testing.T) {
	c := ready(t, Options{}, initOK)
	items, _ := feed(c, strings.Repeat("x", 5000))
	if len(items) != 1 || len(items[0].Text) > 2*garbageLimit {
		t.Fatalf("got %d items, text of %d bytes", len(items), len(items[0].Text))
	}
}

func TestItemMarshalsWithType(t *testing.T) {
	b, err := json.Marshal(Item{Type: TypeText, MessageID: "m1", Text: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	diff(t, "json", `{"type":"text","messageId":"m1","text":"hi"}`, string(b))
}
