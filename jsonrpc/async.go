package jsonrpc

import (
	"context"
	"encoding/json"
	"fmt"
)

// AsyncCall is a call already written to the peer, whose answer is awaited
// with Wait. It lets a caller keep the order of what it sends (write now)
// without waiting for each answer in turn.
type AsyncCall struct {
	wait func() (json.RawMessage, error)
}

// Wait returns the outcome of the call, as Call would.
func (a *AsyncCall) Wait() (json.RawMessage, error) { return a.wait() }

// Go writes a request before it returns, then leaves the waiting to Wait,
// which ends with the answer, ctx, or the connection's end.
func (c *Conn) Go(ctx context.Context, method string, params any) *AsyncCall {
	failed := func(err error) *AsyncCall {
		return &AsyncCall{wait: func() (json.RawMessage, error) { return nil, err }}
	}
	if err := ctx.Err(); err != nil {
		return failed(fmt.Errorf("jsonrpc: %s not sent: %w", method, err))
	}
	raw, err := marshalValue(params)
	if err != nil {
		return failed(fmt.Errorf("jsonrpc: params of %s: %w", method, err))
	}
	calls, err := c.state.start(method)
	if err != nil {
		return failed(err)
	}
	call := calls[0]
	err = c.out.writeLine(func(buf []byte) ([]byte, error) {
		return appendRequest(buf, call.id, method, raw)
	})
	if err != nil {
		c.sendFailed(err)
	}
	return &AsyncCall{wait: func() (json.RawMessage, error) { return c.wait(ctx, call) }}
}

// AsyncBatch is a batch already written to the peer.
type AsyncBatch struct {
	wait func() []BatchResult
}

// Wait returns one outcome per call of the batch, as Batch would.
func (a *AsyncBatch) Wait() []BatchResult { return a.wait() }

// GoBatch writes the calls as one array line before it returns; Wait gives
// the outcomes.
func (c *Conn) GoBatch(ctx context.Context, calls []BatchCall) *AsyncBatch {
	results := make([]BatchResult, len(calls))
	done := func() *AsyncBatch { return &AsyncBatch{wait: func() []BatchResult { return results }} }
	if err := ctx.Err(); err != nil {
		failCalls(calls, results, fmt.Errorf("jsonrpc: batch not sent: %w", err))
		return done()
	}
	msgs, waiting := encodeBatch(calls, results)
	if len(msgs) == 0 {
		return done()
	}
	methods := make([]string, len(waiting))
	for i, w := range waiting {
		methods[i] = calls[w.call].Method
	}
	pending, err := c.state.start(methods...)
	if err != nil {
		failCalls(calls, results, err)
		return done()
	}
	for i, call := range pending {
		msgs[waiting[i].msg].ID = Int64ID(call.id)
	}
	if err := c.out.writeArray(msgs); err != nil {
		c.sendFailed(err)
	}
	return &AsyncBatch{wait: func() []BatchResult {
		for i, call := range pending {
			out := &results[waiting[i].call]
			out.Result, out.Err = c.wait(ctx, call)
		}
		return results
	}}
}
