package acp

import "testing"

const modeOption = `{"id":"approval","name":"Mode","category":"mode","type":"select","currentValue":"approve","options":[]}`
const modelOption = `{"id":"model","name":"Model","category":"model","type":"select","currentValue":"small","options":[]}`

func sessionWith(configOptions string) string {
	return `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1","configOptions":[` + configOptions + `]}}`
}

func TestSetMode(t *testing.T) {
	modes := map[string]string{"default": "approve", "bypassPermissions": "auto"}
	tests := []struct {
		name      string
		session   string
		appMode   string
		wantOuts  []string
		wantItems []Item
	}{
		{"config option of category mode", sessionWith(modeOption), "bypassPermissions",
			[]string{`{"jsonrpc":"2.0","id":2,"method":"session/set_config_option","params":{"sessionId":"s1","configId":"approval","value":"auto"}}`}, nil},
		{"session/set_mode", newSession, "bypassPermissions",
			[]string{`{"jsonrpc":"2.0","id":2,"method":"session/set_mode","params":{"sessionId":"s1","modeId":"auto"}}`}, nil},
		{"read-only", newSession, ReadOnly,
			[]string{`{"jsonrpc":"2.0","id":2,"method":"session/set_mode","params":{"sessionId":"s1","modeId":"chat"}}`}, nil},
		{"unmapped", newSession, "acceptEdits", nil, []Item{notice("the agent has no mode for the app mode acceptEdits")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewClient(Options{Modes: modes, ReadOnlyMode: "chat"})
			c.Start()
			feed(c, initOK, tt.session)
			items, outs := c.SetMode(tt.appMode)
			diff(t, "items", tt.wantItems, items)
			diff(t, "outs", tt.wantOuts, texts(outs))
		})
	}
}

func TestSetModel(t *testing.T) {
	tests := []struct {
		name        string
		modelOption string
		session     string
		want        string
	}{
		{"modelOption", "brain", newSession, `{"jsonrpc":"2.0","id":2,"method":"session/set_config_option","params":{"sessionId":"s1","configId":"brain","value":"big"}}`},
		{"category model", "", sessionWith(modelOption), `{"jsonrpc":"2.0","id":2,"method":"session/set_config_option","params":{"sessionId":"s1","configId":"model","value":"big"}}`},
		{"legacy", "", newSession, `{"jsonrpc":"2.0","id":2,"method":"session/set_model","params":{"sessionId":"s1","modelId":"big"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewClient(Options{ModelOption: tt.modelOption})
			c.Start()
			feed(c, initOK, tt.session)
			items, outs := c.SetModel("big")
			diff(t, "items", []Item(nil), items)
			diff(t, "outs", []string{tt.want}, texts(outs))
		})
	}
}

func TestModeAndModelAnswers(t *testing.T) {
	tests := []struct {
		name    string
		session string
		set     func(c *Client) ([]Item, []Out)
		answer  string
		want    []Item
	}{
		{"set_mode taken", newSession, func(c *Client) ([]Item, []Out) { return c.SetMode("default") },
			`{"jsonrpc":"2.0","id":2,"result":{}}`, []Item{{Type: TypeMode, Mode: "approve"}}},
		{"set_mode refused", newSession, func(c *Client) ([]Item, []Out) { return c.SetMode("default") },
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"bad mode"}}`,
			[]Item{notice("the agent did not take the mode approve: bad mode (code -32602)")}},
		{"set_model taken", newSession, func(c *Client) ([]Item, []Out) { return c.SetModel("big") },
			`{"jsonrpc":"2.0","id":2,"result":null}`, []Item{{Type: TypeModel, Model: "big"}}},
		{"set_model refused", newSession, func(c *Client) ([]Item, []Out) { return c.SetModel("big") },
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}}`,
			[]Item{notice("the agent did not take the model big: no (code -32601)")}},
		{"config option answer with options", sessionWith(modeOption + "," + modelOption), func(c *Client) ([]Item, []Out) { return c.SetModel("big") },
			`{"jsonrpc":"2.0","id":2,"result":{"configOptions":[` + modeOption + `,{"id":"model","category":"model","currentValue":"big"}]}}`,
			[]Item{{Type: TypeConfig, ConfigOptions: raw(`[` + modeOption + `,{"id":"model","category":"model","currentValue":"big"}]`)}, {Type: TypeModel, Model: "big"}}},
		{"config option answer without options", sessionWith(modeOption), func(c *Client) ([]Item, []Out) { return c.SetMode("default") },
			`{"jsonrpc":"2.0","id":2,"result":{}}`, []Item{{Type: TypeMode, Mode: "approve"}}},
		{"config option refused", sessionWith(modeOption), func(c *Client) ([]Item, []Out) { return c.SetMode("default") },
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"bad"}}`,
			[]Item{notice("the agent did not take the mode approve: bad (code -32602)")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewClient(Options{Modes: map[string]string{"default": "approve"}})
			c.Start()
			feed(c, initOK, tt.session)
			tt.set(c)
			items, _ := feed(c, tt.answer)
			diff(t, "items", tt.want, items)
		})
	}
}

func TestModeAndModelWaitForTheSession(t *testing.T) {
	c := NewClient(Options{Modes: map[string]string{"default": "approve"}})
	c.Start()
	for _, set := range []func() ([]Item, []Out){func() ([]Item, []Out) { return c.SetMode("default") }, func() ([]Item, []Out) { return c.SetModel("big") }} {
		if items, outs := set(); len(items)+len(outs) != 0 {
			t.Fatalf("before the session: %v %v", items, texts(outs))
		}
	}
	_, outs := feed(c, initOK, newSession)
	want := []string{
		`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"","mcpServers":[]}}`,
		`{"jsonrpc":"2.0","id":2,"method":"session/set_mode","params":{"sessionId":"s1","modeId":"approve"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"session/set_model","params":{"sessionId":"s1","modelId":"big"}}`,
	}
	diff(t, "outs", want, outs)
}

func TestConfigUpdateTellsOnlyChanges(t *testing.T) {
	c := NewClient(Options{})
	c.Start()
	feed(c, initOK, sessionWith(modeOption+","+modelOption))
	items, _ := feed(c, updateLine(`{"sessionUpdate":"config_option_update","configOptions":[`+modeOption+`,{"id":"model","category":"model","currentValue":"big"}]}`))
	want := []Item{
		{Type: TypeConfig, ConfigOptions: raw(`[` + modeOption + `,{"id":"model","category":"model","currentValue":"big"}]`)},
		{Type: TypeModel, Model: "big"},
	}
	diff(t, "items", want, items)
}
