package jsonrpc

import (
	"context"
	"encoding/json"
	"fmt"
)

// Call sends a request with a fresh integer id and waits for its answer.
// It returns the result on success; the *Error the peer answered; ctx's
// error (wrapped) when ctx ends first, after which a late answer is
// reported as EventLate and otherwise ignored; or an error matching
// ErrClosed when the connection ends first.
func (c *Conn) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("jsonrpc: %s not sent: %w", method, err)
	}
	raw, err := marshalValue(params)
	if err != nil {
		return nil, fmt.Errorf("jsonrpc: params of %s: %w", method, err)
	}
	calls, err := c.state.start(method)
	if err != nil {
		return nil, err
	}
	call := calls[0]
	err = c.out.writeLine(func(buf []byte) ([]byte, error) {
		return appendRequest(buf, call.id, method, raw)
	})
	if err != nil {
		c.sendFailed(err)
	}
	return c.wait(ctx, call)
}

// wait waits for the outcome of a call or the end of ctx.
func (c *Conn) wait(ctx context.Context, call *pendingCall) (json.RawMessage, error) {
	select {
	case out := <-call.answer:
		return out.result, out.err
	case <-ctx.Done():
		if !c.state.abandon(call) {
			out := <-call.answer // given just now, or failed by the end
			return out.result, out.err
		}
		return nil, fmt.Errorf("jsonrpc: %s (id %d): %w", call.method, call.id, ctx.Err())
	}
}

// Notify sends a notification. It fails with ErrClosed after Close or a
// failed write.
func (c *Conn) Notify(method string, params any) error {
	raw, err := marshalValue(params)
	if err != nil {
		return fmt.Errorf("jsonrpc: params of %s: %w", method, err)
	}
	err = c.out.writeMessage(&Message{Method: method, Params: raw})
	if err != nil {
		c.sendFailed(err)
	}
	return err
}
