package acp

import "testing"

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
