package acp

import "testing"

func TestReattach(t *testing.T) {
	loadable := `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true,"sessionCapabilities":{"resume":{}}}}}`
	resumable := `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"sessionCapabilities":{"resume":{}}}}}`
	tests := []struct {
		name      string
		init      string
		wantOut   string
		wantItems []Item
	}{
		{"load", loadable, `{"jsonrpc":"2.0","id":1,"method":"session/load","params":{"sessionId":"old","cwd":"/p","mcpServers":[]}}`, nil},
		{"resume", resumable, `{"jsonrpc":"2.0","id":1,"method":"session/resume","params":{"sessionId":"old","cwd":"/p","mcpServers":[]}}`, nil},
		{"neither", initOK, `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/p","mcpServers":[]}}`,
			[]Item{notice("new session (context cleared)")}},
		{"resume null", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"sessionCapabilities":{"resume":null}}}}`,
			`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/p","mcpServers":[]}}`, []Item{notice("new session (context cleared)")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewClient(Options{Cwd: "/p", SessionID: "old"})
			c.Start()
			items, outs := feed(c, tt.init)
			diff(t, "items", tt.wantItems, items)
			diff(t, "outs", []string{tt.wantOut}, outs)
		})
	}
}

func TestLoadReplaysHistory(t *testing.T) {
	c := NewClient(Options{Cwd: "/p", SessionID: "old", QuestionsInText: true})
	c.Start()
	feed(c, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true}}}`)
	replay := func(u string) string {
		return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"old","update":` + u + `}}`
	}
	items, _ := feed(c,
		replay(`{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"before"}}`),
		replay(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"<escouade_question>old"}}`),
		`{"jsonrpc":"2.0","id":1,"result":null}`,
		replay(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"now"}}`),
	)
	want := []Item{
		{Type: TypeUser, History: true, MessageID: "m1", Text: "before"},
		{Type: TypeText, History: true, MessageID: "m2", Text: "<escouade_question>old"},
		{Type: TypeSession, SessionID: "old", Attach: AttachLoad},
		{Type: TypeText, MessageID: "m3", Text: "now"},
	}
	diff(t, "items", want, items)

	_, outs := c.Prompt("next")
	diff(t, "no instruction after a load", []string{`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"old","prompt":[{"type":"text","text":"next"}]}}`}, texts(outs))
}

func TestFailedLoadOpensANewSession(t *testing.T) {
	c := NewClient(Options{Cwd: "/p", SessionID: "old"})
	c.Start()
	feed(c, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true}}}`)
	items, outs := feed(c, `{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"no such session"}}`)
	diff(t, "items", []Item{notice("session/load failed: no such session (code -32002)"), notice("new session (context cleared)")}, items)
	diff(t, "outs", []string{`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/p","mcpServers":[]}}`}, outs)
	items, _ = feed(c, `{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s2"}}`)
	diff(t, "session", []Item{{Type: TypeSession, SessionID: "s2", Attach: AttachNew}}, items)
}

func TestResumeAnswer(t *testing.T) {
	c := NewClient(Options{Cwd: "/p", SessionID: "old"})
	c.Start()
	feed(c, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"sessionCapabilities":{"resume":{}}}}}`)
	items, _ := feed(c,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"old","update":{"sessionUpdate":"current_mode_update","currentModeId":"a"}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"modes":{"currentModeId":"a","availableModes":[]}}}`)
	want := []Item{
		{Type: TypeMode, Mode: "a"},
		{Type: TypeSession, SessionID: "old", Attach: AttachResume, Modes: raw(`{"currentModeId":"a","availableModes":[]}`)},
	}
	diff(t, "items", want, items)
}
