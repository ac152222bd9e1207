package console

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/jsonrpc"
)

// messageAnswer answers a JSON-RPC request typed into the console: its id
// is the request's, exactly as written (8 stays 8, "a" stays "a").
type messageAnswer struct {
	Op string          `json:"op"`
	ID json.RawMessage `json:"id"`
	host.Outcome
}

// isMessageLine reports whether line is a JSON-RPC message or batch rather
// than a command: an array, or an object with a "jsonrpc" member, which no
// command has. A message or batch copied from the protocol's page is then
// sent to the plugin as written (docs/CLI.md#a-json-rpc-line--a-message-or-a-batch-as-the-protocol-writes-it).
func isMessageLine(line []byte) bool {
	v := bytes.TrimSpace(line)
	if len(v) == 0 {
		return false
	}
	return v[0] == '[' || (v[0] == '{' && rawMember(v, "jsonrpc") != nil)
}

// message sends a JSON-RPC line to the plugin: each request is a call of
// the host (its own id on the wire), answered on a line with the id as
// written; each notification a notification; an array one batch.
func (c *Console) message(ctx context.Context, line []byte) error {
	decoded := jsonrpc.DecodeLine(line)
	msgs := make([]*jsonrpc.Message, len(decoded.Items))
	for i, item := range decoded.Items {
		where := "the message"
		if decoded.Batch {
			where = fmt.Sprintf("member %d of the batch", i)
		}
		switch {
		case item.Err != nil:
			return fmt.Errorf("%s is not a JSON-RPC message: %s", where, item.Err.Message)
		case item.Msg.Method == "":
			return fmt.Errorf("%s is an answer: the console sends requests and notifications", where)
		}
		msgs[i] = item.Msg
	}
	if !decoded.Batch {
		c.sendOne(ctx, msgs[0])
		return nil
	}
	c.sendBatch(ctx, msgs)
	return nil
}

func (c *Console) sendOne(ctx context.Context, m *jsonrpc.Message) {
	if m.ID.IsZero() {
		c.Plugin.Notify(m.Method, params(m.Params))
		return
	}
	pending := c.Plugin.Go(m.Method, params(m.Params)) // in command order
	c.calls.Go(func() {
		c.write(messageAnswer{Op: "answer", ID: m.ID.Raw(), Outcome: pending.Wait(ctx)})
	})
}

func (c *Console) sendBatch(ctx context.Context, msgs []*jsonrpc.Message) {
	calls := make([]jsonrpc.BatchCall, len(msgs))
	for i, m := range msgs {
		calls[i] = jsonrpc.BatchCall{Method: m.Method, Params: params(m.Params), Notify: m.ID.IsZero()}
	}
	pending := c.Plugin.GoBatch(calls)
	c.calls.Go(func() {
		for i, out := range pending.Wait(ctx) {
			if !calls[i].Notify {
				c.write(messageAnswer{Op: "answer", ID: msgs[i].ID.Raw(), Outcome: out})
			}
		}
	})
}
