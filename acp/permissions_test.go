package acp

import (
	"errors"
	"testing"
)

const permissionOptions = `[{"optionId":"yes","name":"Allow","kind":"allow_once"},{"optionId":"always","name":"Always","kind":"allow_always"},{"optionId":"no","name":"Reject","kind":"reject_once"}]`

func permissionLine(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"t1","title":"Write a","kind":"edit","rawInput":{"path":"/p/a"},"content":[{"type":"content","content":{"type":"text","text":"create a"}},{"type":"diff","path":"/p/a","oldText":null,"newText":"x"}]},"options":` + permissionOptions + `}}`
}

func TestPermissionCard(t *testing.T) {
	c := ready(t, Options{}, initOK)
	items, outs := feed(c, permissionLine("0"))
	want := []Item{{
		Type: TypePermission, Request: "r1", ID: "t1", Name: "Write", Title: "Write a", Kind: "edit",
		Input: raw(`{"path":"/p/a"}`), Description: "create a",
		Diffs: []Diff{{Path: "/p/a", NewText: "x"}},
		Options: []PermissionOption{
			{ID: "yes", Name: "Allow", Kind: "allow_once"},
			{ID: "always", Name: "Always", Kind: "allow_always"},
			{ID: "no", Name: "Reject", Kind: "reject_once"},
		},
	}}
	diff(t, "items", want, items)
	diff(t, "outs", []string(nil), outs)
}

func TestAnswerPermission(t *testing.T) {
	tests := []struct {
		name      string
		id        string
		answer    string
		wantItems []Item
		wantOuts  []string
	}{
		{"by kind, id 0", "0", "allow_always",
			[]Item{{Type: TypeAnswered, Request: "r1", Outcome: "selected", Option: "always", Kind: "allow_always"}},
			[]string{`{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected","optionId":"always"}}}`}},
		{"by option id, string id", `"p-1"`, "no",
			[]Item{{Type: TypeAnswered, Request: "r1", Outcome: "selected", Option: "no", Kind: "reject_once"}},
			[]string{`{"jsonrpc":"2.0","id":"p-1","result":{"outcome":{"outcome":"selected","optionId":"no"}}}`}},
		{"id kept as written", "1.50", "allow_once",
			[]Item{{Type: TypeAnswered, Request: "r1", Outcome: "selected", Option: "yes", Kind: "allow_once"}},
			[]string{`{"jsonrpc":"2.0","id":1.50,"result":{"outcome":{"outcome":"selected","optionId":"yes"}}}`}},
		{"cancelled", "7", "cancelled",
			[]Item{{Type: TypeAnswered, Request: "r1", Outcome: "cancelled"}},
			[]string{`{"jsonrpc":"2.0","id":7,"result":{"outcome":{"outcome":"cancelled"}}}`}},
		{"no such option", "7", "reject_always",
			[]Item{notice(`permission card r1 offers no option "reject_always"`)}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ready(t, Options{}, initOK)
			feed(c, permissionLine(tt.id))
			items, outs := c.AnswerPermission("r1", tt.answer)
			diff(t, "items", tt.wantItems, items)
			diff(t, "outs", tt.wantOuts, texts(outs))
		})
	}
}

func TestAnswerPermissionTwice(t *testing.T) {
	c := ready(t, Options{}, initOK)
	feed(c, permissionLine("1"))
	c.AnswerPermission("r1", "allow_once")
	items, outs := c.AnswerPermission("r1", "allow_once")
	diff(t, "items", []Item{notice("no permission card r1 is waiting")}, items)
	diff(t, "outs", []string(nil), texts(outs))
}

func TestBadPermissionRequests(t *testing.T) {
	tests := []struct{ name, params, wantErr string }{
		{"no options", `{"sessionId":"s1","toolCall":{"toolCallId":"t"},"options":[]}`, "no toolCall or no options"},
		{"no tool call", `{"sessionId":"s1","options":` + permissionOptions + `}`, "no toolCall or no options"},
		{"not an object", `[]`, "json: cannot unmarshal array into Go value of type acp.permissionRequest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ready(t, Options{}, initOK)
			line := `{"jsonrpc":"2.0","id":3,"method":"session/request_permission","params":` + tt.params + `}`
			items, outs := feed(c, line)
			wantOut := `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"` + tt.wantErr + `"}}`
			diff(t, "outs", []string{wantOut}, outs)
			diff(t, "items", []Item{notice("the agent's session/request_permission request is not understood: " + tt.wantErr), unknown(raw(line))}, items)
		})
	}
}

func TestFSRequests(t *testing.T) {
	tests := []struct {
		name      string
		fs        bool
		line      string
		wantItems []Item
		wantOuts  []string
	}{
		{"read", true, `{"jsonrpc":"2.0","id":0,"method":"fs/read_text_file","params":{"sessionId":"s1","path":"/p/a","line":3,"limit":10}}`,
			[]Item{{Type: TypeFSRead, Request: "r1", Path: "/p/a", Line: ptr(3), Limit: ptr(10)}}, nil},
		{"write", true, `{"jsonrpc":"2.0","id":0,"method":"fs/write_text_file","params":{"sessionId":"s1","path":"/p/a","content":""}}`,
			[]Item{{Type: TypeFSWrite, Request: "r1", Path: "/p/a"}}, nil},
		{"write without content", true, `{"jsonrpc":"2.0","id":0,"method":"fs/write_text_file","params":{"sessionId":"s1","path":"/p/a"}}`,
			[]Item{notice("the agent's fs/write_text_file request is not understood: no content"),
				unknown(raw(`{"jsonrpc":"2.0","id":0,"method":"fs/write_text_file","params":{"sessionId":"s1","path":"/p/a"}}`))},
			[]string{`{"jsonrpc":"2.0","id":0,"error":{"code":-32602,"message":"no content"}}`}},
		{"read without path", true, `{"jsonrpc":"2.0","id":0,"method":"fs/read_text_file","params":{"sessionId":"s1"}}`,
			[]Item{notice("the agent's fs/read_text_file request is not understood: no path"),
				unknown(raw(`{"jsonrpc":"2.0","id":0,"method":"fs/read_text_file","params":{"sessionId":"s1"}}`))},
			[]string{`{"jsonrpc":"2.0","id":0,"error":{"code":-32602,"message":"no path"}}`}},
		{"no fs offered", false, `{"jsonrpc":"2.0","id":0,"method":"fs/read_text_file","params":{"sessionId":"s1","path":"/p/a"}}`,
			[]Item{unknown(raw(`{"jsonrpc":"2.0","id":0,"method":"fs/read_text_file","params":{"sessionId":"s1","path":"/p/a"}}`))},
			[]string{`{"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"method not found: fs/read_text_file"}}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ready(t, Options{FS: tt.fs}, initOK)
			items, outs := feed(c, tt.line)
			diff(t, "items", tt.wantItems, items)
			diff(t, "outs", tt.wantOuts, outs)
		})
	}
}

func TestReply(t *testing.T) {
	read := `{"jsonrpc":"2.0","id":"x","method":"fs/read_text_file","params":{"sessionId":"s1","path":"/p/a"}}`
	tests := []struct {
		name   string
		result any
		err    error
		want   string
	}{
		{"content", map[string]string{"content": "hello"}, nil, `{"jsonrpc":"2.0","id":"x","result":{"content":"hello"}}`},
		{"empty result", nil, nil, `{"jsonrpc":"2.0","id":"x","result":{}}`},
		{"wire error", nil, &Error{Code: -32002, Message: "outside the fence"}, `{"jsonrpc":"2.0","id":"x","error":{"code":-32002,"message":"outside the fence"}}`},
		{"other error", nil, errors.New("disk"), `{"jsonrpc":"2.0","id":"x","error":{"code":-32603,"message":"disk"}}`},
		{"result that cannot be encoded", make(chan int), nil, `{"jsonrpc":"2.0","id":"x","error":{"code":-32603,"message":"the host's answer cannot be encoded"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ready(t, Options{FS: true}, initOK)
			feed(c, read)
			diff(t, "outs", []string{tt.want}, texts(c.Reply("r1", tt.result, tt.err)))
			diff(t, "second reply", []string(nil), texts(c.Reply("r1", nil, nil)))
		})
	}
}
