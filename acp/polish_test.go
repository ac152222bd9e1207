package acp

import "testing"

func TestToolCallAlreadyDone(t *testing.T) {
	c := ready(t, Options{}, initOK)
	items, _ := feed(c, updateLine(`{"sessionUpdate":"tool_call","toolCallId":"t","title":"cat a","kind":"read","status":"completed","rawOutput":"x"}`))
	want := []Item{
		{Type: TypeTool, ID: "t", Name: "Read", Title: "cat a", Kind: "read", Status: "completed"},
		{Type: TypeToolDone, ID: "t", Name: "Read", Title: "cat a", Status: "completed", Output: raw(`"x"`)},
	}
	diff(t, "items", want, items)
}

func TestErrorWithoutID(t *testing.T) {
	c := ready(t, Options{}, initOK)
	items, _ := feed(c, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
	diff(t, "items", []Item{notice("the agent could not take a message: Parse error (code -32700)")}, items)
}

func TestMessageIDOfTheWrongType(t *testing.T) {
	c := ready(t, Options{}, initOK)
	line := `{"sessionUpdate":"agent_message_chunk","messageId":5,"content":{"type":"text","text":"a"}}`
	items, _ := feed(c, updateLine(line))
	want := []Item{
		notice("the agent's agent_message_chunk update is not understood: messageId: json: cannot unmarshal number into Go value of type string"),
		unknown(raw(line)),
	}
	diff(t, "items", want, items)
}

func TestTheEndShowsHeldText(t *testing.T) {
	tests := []struct {
		name string
		end  func(c *Client) []Item
		want []Item
	}{
		{"agent stopped", func(c *Client) []Item { return c.AgentStopped("") },
			[]Item{{Type: TypeText, MessageID: "m2", Text: "<escouade_question>{"},
				notice("the agent's question block is malformed (no </escouade_question>); it is shown as text"),
				{Type: TypeTurn, StopReason: StopError}, {Type: TypeClosed}}},
		{"closed", func(c *Client) []Item { items, _ := c.Close(); return items },
			[]Item{{Type: TypeText, MessageID: "m2", Text: "<escouade_question>{"},
				notice("the agent's question block is malformed (no </escouade_question>); it is shown as text"),
				{Type: TypeTurn, StopReason: "cancelled"}, {Type: TypeClosed}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ready(t, Options{QuestionsInText: true}, initOK)
			c.Prompt("go")
			feed(c, chunk("<escouade_question>{"))
			diff(t, "items", tt.want, tt.end(c))
		})
	}
}
