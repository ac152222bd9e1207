package acp

import "testing"

func TestEveryUpdateKind(t *testing.T) {
	tests := []struct {
		name   string
		update string
		want   []Item
	}{
		{"agent text", `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}`,
			[]Item{{Type: TypeText, MessageID: "m1", Text: "hi"}}},
		{"agent text with its message id", `{"sessionUpdate":"agent_message_chunk","messageId":"a7","content":{"type":"text","text":"hi"}}`,
			[]Item{{Type: TypeText, MessageID: "a7", Text: "hi"}}},
		{"thought", `{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"hmm"}}`,
			[]Item{{Type: TypeThinking, MessageID: "m1", Text: "hmm"}}},
		{"user", `{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"do it"}}`,
			[]Item{{Type: TypeUser, MessageID: "m1", Text: "do it"}}},
		{"image", `{"sessionUpdate":"agent_message_chunk","content":{"type":"image","data":"AA==","mimeType":"image/png"}}`,
			[]Item{{Type: TypeText, MessageID: "m1", Content: raw(`{"type":"image","data":"AA==","mimeType":"image/png"}`)}}},
		{"unknown content type", `{"sessionUpdate":"agent_message_chunk","content":{"type":"video"}}`,
			[]Item{unknown(raw(`{"sessionUpdate":"agent_message_chunk","content":{"type":"video"}}`))}},
		{"chunk without content", `{"sessionUpdate":"agent_message_chunk"}`,
			[]Item{notice("the agent's agent_message_chunk update is not understood: content: unexpected end of JSON input"),
				unknown(raw(`{"sessionUpdate":"agent_message_chunk"}`))}},
		{"plan", `{"sessionUpdate":"plan","entries":[{"content":"a","priority":"high","status":"pending"}]}`,
			[]Item{{Type: TypePlan, Entries: raw(`[{"content":"a","priority":"high","status":"pending"}]`)}}},
		{"commands", `{"sessionUpdate":"available_commands_update","availableCommands":[{"name":"web","description":"d"}]}`,
			[]Item{{Type: TypeCommands, Commands: raw(`[{"name":"web","description":"d"}]`)}}},
		{"mode", `{"sessionUpdate":"current_mode_update","currentModeId":"code"}`,
			[]Item{{Type: TypeMode, Mode: "code"}}},
		{"mode without id", `{"sessionUpdate":"current_mode_update"}`,
			[]Item{notice("the agent's current_mode_update update is not understood: no currentModeId"),
				unknown(raw(`{"sessionUpdate":"current_mode_update"}`))}},
		{"config", `{"sessionUpdate":"config_option_update","configOptions":[{"id":"m","name":"Model","category":"model","type":"select","currentValue":"fast","options":[]}]}`,
			[]Item{{Type: TypeConfig, ConfigOptions: raw(`[{"id":"m","name":"Model","category":"model","type":"select","currentValue":"fast","options":[]}]`)},
				{Type: TypeModel, Model: "fast"}}},
		{"session info", `{"sessionUpdate":"session_info_update","title":"Fix the bug","updatedAt":"2025-01-01T00:00:00Z"}`,
			[]Item{{Type: TypeSessionInfo, SessionID: "s1", Title: "Fix the bug"}}},
		{"usage", `{"sessionUpdate":"usage_update","used":1200,"size":200000,"cost":{"amount":0.5,"currency":"USD"}}`,
			[]Item{{Type: TypeUsage, Context: &ContextUsage{Used: 1200, Size: 200000, Cost: raw(`{"amount":0.5,"currency":"USD"}`)}}}},
		{"usage of the wrong type", `{"sessionUpdate":"usage_update","used":"lots","size":1}`,
			[]Item{notice("the agent's usage_update update is not understood: json: cannot unmarshal string into Go struct field ContextUsage.used of type int"),
				unknown(raw(`{"sessionUpdate":"usage_update","used":"lots","size":1}`))}},
		{"unknown kind", `{"sessionUpdate":"telepathy","x":1}`,
			[]Item{unknown(raw(`{"sessionUpdate":"telepathy","x":1}`))}},
		{"no kind", `{"x":1}`, []Item{unknown(raw(`{"x":1}`))}},
		{"not an object", `42`, []Item{unknown(raw(`42`))}},
		{"an extra field is tolerated", `{"sessionUpdate":"current_mode_update","currentModeId":"code","mood":"happy","_meta":{"a":1}}`,
			[]Item{{Type: TypeMode, Mode: "code"}}},
		// claude-agent-acp's first tool_call, with the extra "name" field the
		// issue saw: one tool item, no unknown item beside it.
		{"Claude Code's tool_call with a name", `{"_meta":{"claudeCode":{"toolName":"Write"}},"toolCallId":"toolu_01","sessionUpdate":"tool_call","name":"Write","rawInput":{},"status":"pending","title":"Write","kind":"edit","content":[],"locations":[]}`,
			[]Item{{Type: TypeTool, ID: "toolu_01", Name: "Write", Title: "Write", Kind: "edit", Status: "pending", Input: raw(`{}`), Content: raw(`[]`)}}},
		{"_meta is known", `{"sessionUpdate":"current_mode_update","currentModeId":"code","_meta":{"a":1}}`,
			[]Item{{Type: TypeMode, Mode: "code"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ready(t, Options{}, initOK)
			items, outs := feed(c, updateLine(tt.update))
			diff(t, "items", tt.want, items)
			diff(t, "outs", []string(nil), outs)
		})
	}
}

func TestMessageIDs(t *testing.T) {
	c := ready(t, Options{}, initOK)
	items, _ := feed(c,
		updateLine(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a"}}`),
		updateLine(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"b"}}`),
		updateLine(`{"sessionUpdate":"usage_update","used":1,"size":2}`),
		updateLine(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"c"}}`),
		updateLine(`{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"t"}}`),
		updateLine(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"d"}}`),
		updateLine(`{"sessionUpdate":"tool_call","toolCallId":"t1","title":"ls","kind":"execute"}`),
		updateLine(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"e"}}`),
		updateLine(`{"sessionUpdate":"agent_message_chunk","messageId":"X","content":{"type":"text","text":"f"}}`),
		updateLine(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"g"}}`),
	)
	var got []string
	for _, it := range items {
		if it.Type == TypeText || it.Type == TypeThinking {
			got = append(got, it.MessageID+":"+it.Text)
		}
	}
	want := []string{"m1:a", "m1:b", "m1:c", "m2:t", "m3:d", "m4:e", "X:f", "m5:g"}
	diff(t, "message ids", want, got)
}
