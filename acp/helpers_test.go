package acp

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Lines the tests play as the agent. The client's own request ids count
// from 0: initialize is 0, session/new 1, the first prompt 2.
const (
	initOK     = `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{}}}`
	newSession = `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`
)

func texts(outs []Out) []string {
	var list []string
	for _, o := range outs {
		list = append(list, string(o.Line))
	}
	return list
}

// feed plays lines as the agent and gathers what the client gives.
func feed(c *Client, lines ...string) ([]Item, []string) {
	var items []Item
	var outs []string
	for _, l := range lines {
		it, o := c.Feed([]byte(l))
		items = append(items, it...)
		outs = append(outs, texts(o)...)
	}
	return items, outs
}

// ready gives a client with its session s1 open.
func ready(t *testing.T, opts Options, initAnswer string) *Client {
	t.Helper()
	c := NewClient(opts)
	c.Start()
	items, _ := feed(c, initAnswer, newSession)
	if len(items) == 0 || items[len(items)-1].Type != TypeSession {
		t.Fatalf("session not open: %+v", items)
	}
	return c
}

// updateLine is a session/update line of session s1.
func updateLine(u string) string {
	return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":` + u + `}}`
}

func raw(s string) json.RawMessage { return json.RawMessage(s) }

func ptr[T any](v T) *T { return &v }

func diff[T any](t *testing.T, what string, want, got T) {
	t.Helper()
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("%s (-want +got):\n%s", what, d)
	}
}
