package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// BatchCall is one member of a batch: a call, or a notification when
// Notify is set. Timeout, when set, bounds the wait for this call's answer
// from the moment the batch is written (each member keeps its own delay,
// kept by the connection's one timer); ctx bounds them all.
type BatchCall struct {
	Method  string
	Params  any
	Notify  bool
	Timeout time.Duration
}

// BatchResult is the outcome of one call of a batch, as Call would return
// it. A notification's is the zero BatchResult.
type BatchResult struct {
	Result json.RawMessage
	Err    error
}

// Batch sends the calls as one array line and returns one outcome per call,
// in the same order. The peer may answer with one array in any order or,
// tolerated, answer by answer; each outcome waits for its own id until ctx
// ends. A member whose params cannot be encoded is left out of the line and
// gets that error. A line that would pass the line limit is not sent, and
// every call gets ErrLineTooLong.
func (c *Conn) Batch(ctx context.Context, calls []BatchCall) []BatchResult {
	return c.GoBatch(ctx, calls).Wait()
}

// GoBatch writes the calls as one array line before it returns and leaves
// the waiting to the returned batch's Wait.
func (c *Conn) GoBatch(ctx context.Context, calls []BatchCall) *AsyncBatch {
	b := &AsyncBatch{conn: c, ctx: ctx, results: make([]BatchResult, len(calls))}
	if err := ctx.Err(); err != nil {
		failCalls(calls, b.results, fmt.Errorf("jsonrpc: batch not sent: %w", err))
		return b
	}
	msgs, waiting := encodeBatch(calls, b.results)
	if len(waiting) == 0 {
		c.sendNotifications(msgs)
		return b
	}
	methods := make([]string, len(waiting))
	for i, w := range waiting {
		methods[i] = calls[w.call].Method
	}
	pending, err := c.startCalls(methods, func(i int) time.Duration { return calls[waiting[i].call].Timeout })
	if err != nil {
		failCalls(calls, b.results, err)
		return b
	}
	for i, call := range pending {
		msgs[waiting[i].msg].ID = Int64ID(call.id)
	}
	err = c.out.writeArray(msgs)
	switch {
	case errors.Is(err, ErrLineTooLong):
		for _, call := range pending {
			c.unregister(call)
			c.state.releaseCall(call)
		}
		failCalls(calls, b.results, fmt.Errorf("%w: a batch of %d, %s at most", err, len(calls), formatSize(c.limits.writeLine)))
		return b
	case err != nil:
		c.sendFailed(err) // the end of the connection fails the calls
	}
	b.pending, b.waiting = pending, waiting
	return b
}

// AsyncBatch is a batch already written to the peer.
type AsyncBatch struct {
	conn    *Conn
	ctx     context.Context
	results []BatchResult
	pending []*pendingCall // the calls still to wait for
	waiting []awaited      // where each pending call's outcome goes
}

// Wait returns one outcome per call of the batch, as Batch would. It waits
// the first time only; it is not safe for concurrent use.
func (b *AsyncBatch) Wait() []BatchResult {
	for i, call := range b.pending {
		out := &b.results[b.waiting[i].call]
		out.Result, out.Err = b.conn.wait(b.ctx, call)
	}
	b.pending = nil
	return b.results
}

// sendNotifications writes a batch that expects no answer.
func (c *Conn) sendNotifications(msgs []Message) {
	if len(msgs) == 0 {
		return
	}
	if err := c.out.writeArray(msgs); err != nil {
		c.sendFailed(err)
	}
}

// awaited links a call of a batch that expects an answer to its message.
type awaited struct {
	call int // index in the calls and results
	msg  int // index in the messages sent
}

// encodeBatch builds the messages of a batch, ids not yet set, and lists
// the calls that expect an answer. results gets the errors of params that
// cannot be encoded.
func encodeBatch(calls []BatchCall, results []BatchResult) (msgs []Message, waiting []awaited) {
	msgs = make([]Message, 0, len(calls))
	waiting = make([]awaited, 0, len(calls))
	for i, call := range calls {
		raw, err := marshalValue(call.Params)
		if err != nil {
			results[i].Err = fmt.Errorf("jsonrpc: params of %s: %w", call.Method, err)
			continue
		}
		if !call.Notify {
			waiting = append(waiting, awaited{call: i, msg: len(msgs)})
		}
		msgs = append(msgs, Message{Method: call.Method, Params: raw})
	}
	return msgs, waiting
}

// failCalls gives err to every call that expects an answer and has no
// error yet.
func failCalls(calls []BatchCall, results []BatchResult, err error) {
	for i, call := range calls {
		if !call.Notify && results[i].Err == nil {
			results[i].Err = err
		}
	}
}
