package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Call sends a request with a fresh integer id and waits for its answer.
// It returns the result on success; the *Error the peer answered; ctx's
// error (wrapped) when ctx ends first, after which a late answer is
// reported as EventLate and otherwise ignored; or an error matching
// ErrClosed when the connection ends first.
func (c *Conn) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	call, err := c.sendCall(ctx, method, params, 0)
	if err != nil {
		return nil, err
	}
	return c.wait(ctx, call)
}

// Go writes a request before it returns and leaves the waiting to the
// returned call's Wait. It lets a caller keep the order of what it sends
// without waiting for each answer in turn.
func (c *Conn) Go(ctx context.Context, method string, params any) *AsyncCall {
	return c.GoTimeout(ctx, method, params, 0)
}

// GoTimeout is Go with a delay: past timeout, counted from the write,
// Wait stops waiting with an error matching context.DeadlineExceeded, as
// a context deadline would, and a later answer is reported as EventLate.
// The delay is kept by the connection's one timer, so a call answered in
// time costs no timer of its own; zero means no delay.
func (c *Conn) GoTimeout(ctx context.Context, method string, params any, timeout time.Duration) *AsyncCall {
	call, err := c.sendCall(ctx, method, params, timeout)
	return &AsyncCall{conn: c, ctx: ctx, call: call, err: err}
}

// AsyncCall is a request already written to the peer.
type AsyncCall struct {
	conn   *Conn
	ctx    context.Context
	call   *pendingCall // nil when the request was not sent
	result json.RawMessage
	err    error
}

// Wait returns the outcome of the call, as Call would. It waits the first
// time only; it is not safe for concurrent use.
func (a *AsyncCall) Wait() (json.RawMessage, error) {
	if a.call != nil {
		a.result, a.err = a.conn.wait(a.ctx, a.call)
		a.call = nil
	}
	return a.result, a.err
}

// sendCall registers a call and writes its request.
func (c *Conn) sendCall(ctx context.Context, method string, params any, timeout time.Duration) (*pendingCall, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("jsonrpc: %s not sent: %w", method, err)
	}
	raw, err := marshalValue(params)
	if err != nil {
		return nil, fmt.Errorf("jsonrpc: params of %s: %w", method, err)
	}
	call, err := c.startCall(method, timeout)
	if err != nil {
		return nil, err
	}
	err = c.out.writeLine(func(buf []byte) ([]byte, error) {
		return appendRequest(buf, call.id, method, raw)
	})
	switch {
	case errors.Is(err, ErrLineTooLong):
		c.unregister(call)
		c.state.releaseCall(call)
		return nil, fmt.Errorf("%w: %s, %s at most", err, method, formatSize(c.limits.writeLine))
	case err != nil:
		c.sendFailed(err) // the end of the connection fails the call
	}
	return call, nil
}

// unregister forgets a call that was never sent.
func (c *Conn) unregister(call *pendingCall) {
	c.state.update(func(s *connState) {
		if s.pending[call.id] == call {
			s.forgetCall(call)
		}
	})
}

// wait waits for the outcome of a call or the end of ctx, then releases
// the call: it must not be used after.
func (c *Conn) wait(ctx context.Context, call *pendingCall) (json.RawMessage, error) {
	defer c.state.releaseCall(call)
	select {
	case out := <-call.answer: // already read, as in a batch's answer
		return out.result, out.err
	default:
	}
	if out, ok := c.readOwnAnswer(ctx, call); ok {
		return out.result, out.err
	}
	select {
	case out := <-call.answer:
		return out.result, out.err
	case <-ctx.Done():
		if !c.abandon(call) {
			out := <-call.answer // given just now, or failed by the end
			return out.result, out.err
		}
		return nil, fmt.Errorf("jsonrpc: %s (id %d): %w", call.method, call.id, ctx.Err())
	}
}

// Notify sends a notification. It fails with ErrClosed after Close or a
// failed write, and with ErrLineTooLong for a line past the limit.
func (c *Conn) Notify(method string, params any) error {
	raw, err := marshalValue(params)
	if err != nil {
		return fmt.Errorf("jsonrpc: params of %s: %w", method, err)
	}
	err = c.out.writeMessage(&Message{Method: method, Params: raw})
	if errors.Is(err, ErrLineTooLong) {
		return fmt.Errorf("%w: %s, %s at most", err, method, formatSize(c.limits.writeLine))
	}
	if err != nil {
		c.sendFailed(err)
	}
	return err
}
