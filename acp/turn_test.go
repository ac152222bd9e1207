package acp

import "testing"

func TestPromptAndTurn(t *testing.T) {
	c := ready(t, Options{}, initOK)
	items, outs := c.Prompt("hello")
	diff(t, "prompt items", []Item{{Type: TypeUser, MessageID: "m1", Text: "hello"}}, items)
	diff(t, "prompt outs", []string{`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"hello"}]}}`}, texts(outs))
	if !c.TurnRunning() {
		t.Fatal("no turn running after Prompt")
	}
	items, outs = c.Prompt("again")
	diff(t, "second prompt", []Item{notice("a turn is already running: wait for its end or cancel it")}, items)
	diff(t, "second prompt outs", []string(nil), texts(outs))

	items, _ = feed(c,
		updateLine(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}`),
		`{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn","usage":{"inputTokens":10,"outputTokens":5,"totalTokens":15,"thoughtTokens":2}}}`)
	want := []Item{
		{Type: TypeText, MessageID: "m2", Text: "hi"},
		{Type: TypeTurn, StopReason: "end_turn", Usage: &Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15, ThoughtTokens: 2}},
	}
	diff(t, "turn", want, items)

	c.Prompt("more")
	feed(c, `{"jsonrpc":"2.0","id":3,"result":{"stopReason":"max_tokens","usage":{"inputTokens":1,"outputTokens":1,"totalTokens":2,"cachedReadTokens":4}}}`)
	diff(t, "totals", Usage{InputTokens: 11, OutputTokens: 6, TotalTokens: 17, ThoughtTokens: 2, CachedReadTokens: 4}, c.Totals())
}

func TestPromptAnswers(t *testing.T) {
	tests := []struct {
		name   string
		cancel bool
		answer string
		want   []Item
	}{
		{"refusal", false, `{"jsonrpc":"2.0","id":2,"result":{"stopReason":"refusal"}}`, []Item{{Type: TypeTurn, StopReason: "refusal"}}},
		{"end_turn after cancel", true, `{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`, []Item{{Type: TypeTurn, StopReason: "cancelled"}}},
		{"cancelled", true, `{"jsonrpc":"2.0","id":2,"result":{"stopReason":"cancelled"}}`, []Item{{Type: TypeTurn, StopReason: "cancelled"}}},
		{"-32800 after cancel", true, `{"jsonrpc":"2.0","id":2,"error":{"code":-32800,"message":"Request cancelled"}}`, []Item{{Type: TypeTurn, StopReason: "cancelled"}}},
		{"-32800 without cancel", false, `{"jsonrpc":"2.0","id":2,"error":{"code":-32800,"message":"Request cancelled"}}`,
			[]Item{notice("the agent failed the turn: Request cancelled (code -32800)"), {Type: TypeTurn, StopReason: StopError}}},
		{"other error after cancel", true, `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"boom"}}`,
			[]Item{notice("the agent failed the turn: boom (code -32603)"), {Type: TypeTurn, StopReason: StopError}}},
		{"no stop reason", false, `{"jsonrpc":"2.0","id":2,"result":{}}`,
			[]Item{notice("the agent's prompt answer holds no stopReason"), unknown(raw(`{}`)), {Type: TypeTurn, StopReason: StopError}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ready(t, Options{}, initOK)
			c.Prompt("go")
			if tt.cancel {
				c.Cancel()
			}
			items, _ := feed(c, tt.answer)
			diff(t, "items", tt.want, items)
			if c.TurnRunning() || c.CancelPending() {
				t.Errorf("turn still running (%v) or cancel pending (%v)", c.TurnRunning(), c.CancelPending())
			}
		})
	}
}

func TestCancel(t *testing.T) {
	tests := []struct {
		name     string
		opts     Options
		wantOuts []string
	}{
		{"session/cancel", Options{}, []string{
			`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`,
			`{"jsonrpc":"2.0","id":"p","result":{"outcome":{"outcome":"cancelled"}}}`}},
		{"with $/cancel_request", Options{CancelRequests: true}, []string{
			`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`,
			`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":2}}`,
			`{"jsonrpc":"2.0","id":"p","result":{"outcome":{"outcome":"cancelled"}}}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ready(t, tt.opts, initOK)
			c.Prompt("go")
			feed(c, permissionLine(`"p"`))
			items, outs := c.Cancel()
			diff(t, "items", []Item{{Type: TypeAnswered, Request: "r1", Outcome: "cancelled"}}, items)
			diff(t, "outs", tt.wantOuts, texts(outs))
			if !c.CancelPending() {
				t.Error("CancelPending() = false after Cancel")
			}
			items, outs = c.Cancel()
			if len(items)+len(outs) != 0 {
				t.Errorf("second Cancel gave %v %v", items, texts(outs))
			}
		})
	}
}

func TestCancelWithoutTurn(t *testing.T) {
	c := ready(t, Options{}, initOK)
	items, outs := c.Cancel()
	if len(items)+len(outs) != 0 || c.CancelPending() {
		t.Errorf("Cancel without a turn gave %v %v", items, texts(outs))
	}
}

func TestPromptBeforeTheSession(t *testing.T) {
	c := NewClient(Options{})
	c.Start()
	items, outs := c.Prompt("early")
	if len(items)+len(outs) != 0 {
		t.Fatalf("queued prompt gave %v %v", items, texts(outs))
	}
	diff(t, "second early prompt", []Item{notice("a turn is already running: wait for its end or cancel it")}, first(c.Prompt("x")))
	items, outs2 := feed(c, initOK, newSession)
	diff(t, "items", []Item{{Type: TypeSession, SessionID: "s1", Attach: AttachNew}, {Type: TypeUser, MessageID: "m1", Text: "early"}}, items)
	diff(t, "last out", `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"early"}]}}`, outs2[len(outs2)-1])
}

func TestCancelOfAQueuedPrompt(t *testing.T) {
	c := NewClient(Options{})
	c.Start()
	c.Prompt("early")
	diff(t, "cancel", []Item{{Type: TypeTurn, StopReason: "cancelled"}}, first(c.Cancel()))
	_, outs := feed(c, initOK, newSession)
	diff(t, "outs", []string{`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"","mcpServers":[]}}`}, outs)
}

func first(items []Item, _ []Out) []Item { return items }

func TestAgentStopped(t *testing.T) {
	tests := []struct {
		name   string
		cancel bool
		want   []Item
	}{
		{"crash in a turn", false, []Item{{Type: TypeTurn, StopReason: StopError}, notice("the agent stopped (exit 3)"), {Type: TypeClosed}}},
		{"stopped after cancel", true, []Item{{Type: TypeTurn, StopReason: "cancelled"}, notice("the agent stopped (exit 3)"), {Type: TypeClosed}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ready(t, Options{}, initOK)
			c.Prompt("go")
			if tt.cancel {
				c.Cancel()
			}
			diff(t, "items", tt.want, c.AgentStopped("the agent stopped (exit 3)"))
			diff(t, "again", []Item(nil), c.AgentStopped("x"))
			items, outs := c.Prompt("after")
			diff(t, "prompt after the end", []Item{notice("the session has ended")}, items)
			diff(t, "outs", []string(nil), texts(outs))
		})
	}
}

func TestClose(t *testing.T) {
	closable := `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"sessionCapabilities":{"close":{}}}}}`
	tests := []struct {
		name     string
		init     string
		wantOuts []string
	}{
		{"with session/close", closable, []string{`{"jsonrpc":"2.0","id":2,"method":"session/close","params":{"sessionId":"s1"}}`}},
		{"without", initOK, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ready(t, Options{}, tt.init)
			items, outs := c.Close()
			diff(t, "items", []Item{{Type: TypeClosed}}, items)
			diff(t, "outs", tt.wantOuts, texts(outs))
			if !c.Ended() {
				t.Error("not ended after Close")
			}
			items, outs2 := feed(c, updateLine(`{"sessionUpdate":"plan","entries":[]}`))
			if len(items)+len(outs2) != 0 {
				t.Errorf("Feed after Close gave %v %v", items, outs2)
			}
		})
	}
}

// TestTurnTokensFromUsageUpdates: codex-acp answers the prompt with a stop
// reason alone and sends its tokens as usage_update (src/thread.rs,
// EventMsg::TokenCount): the turn carries the last one's used tokens,
// marked fromContext, and Totals does not add them up.
func TestTurnTokensFromUsageUpdates(t *testing.T) {
	c := ready(t, Options{}, initOK)
	feed(c, updateLine(`{"sessionUpdate":"usage_update","used":99,"size":400000}`)) // before the turn: not its own
	c.Prompt("hello")
	items, _ := feed(c,
		updateLine(`{"sessionUpdate":"usage_update","used":5200,"size":258400}`),
		updateLine(`{"sessionUpdate":"usage_update","used":6100,"size":258400}`),
		`{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`)
	diff(t, "turn", &Item{Type: TypeTurn, StopReason: "end_turn", Usage: &Usage{TotalTokens: 6100, FromContext: true}}, last(items))
	diff(t, "totals", Usage{}, c.Totals())

	c.Prompt("again") // a turn without usage_update has no usage
	items, _ = feed(c, `{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`)
	diff(t, "no usage", &Item{Type: TypeTurn, StopReason: "end_turn"}, last(items))

	c.Prompt("cancel me") // a cancelled turn keeps its tokens
	c.Cancel()
	items, _ = feed(c, updateLine(`{"sessionUpdate":"usage_update","used":7000,"size":258400}`),
		`{"jsonrpc":"2.0","id":4,"error":{"code":-32800,"message":"Request cancelled"}}`)
	diff(t, "cancelled", &Item{Type: TypeTurn, StopReason: "cancelled", Usage: &Usage{TotalTokens: 7000, FromContext: true}}, last(items))

	c.Prompt("given") // the prompt answer's usage wins
	items, _ = feed(c, updateLine(`{"sessionUpdate":"usage_update","used":8000,"size":258400}`),
		`{"jsonrpc":"2.0","id":5,"result":{"stopReason":"end_turn","usage":{"inputTokens":3,"outputTokens":4,"totalTokens":7}}}`)
	diff(t, "given", &Item{Type: TypeTurn, StopReason: "end_turn", Usage: &Usage{InputTokens: 3, OutputTokens: 4, TotalTokens: 7}}, last(items))
}

func last(items []Item) *Item {
	if len(items) == 0 {
		return nil
	}
	return &items[len(items)-1]
}
