package jsonrpc

import (
	"errors"
	"fmt"
	"io"
)

// readLoop reads the peer's lines until the stream ends, then fails the
// calls still waiting.
func (c *Conn) readLoop() {
	defer close(c.done)
	for {
		line, tooLong, err := c.lines.Next()
		if err != nil {
			c.endReading(err)
			return
		}
		if tooLong {
			c.event(Event{Kind: EventTooLong, Text: excerpt(line)})
			c.answerError(ID{}, ErrParse)
			continue
		}
		c.dispatch(line)
	}
}

// endReading fails pending calls: no answer can come any more. A clean end
// of the stream is no error; any other read error is the cause, unless the
// connection was already stopped (Close makes the read fail).
func (c *Conn) endReading(err error) {
	if errors.Is(err, io.EOF) {
		c.state.end(nil, ErrClosed)
		return
	}
	c.state.end(err, fmt.Errorf("%w: %w", ErrClosed, err))
}

// dispatch decodes one line and routes what it holds.
func (c *Conn) dispatch(line []byte) {
	decoded := DecodeLine(line)
	if hasInvalid(decoded.Items) {
		c.event(Event{Kind: EventBadLine, Text: excerpt(line)})
	}
	if decoded.Batch {
		c.serveBatch(decoded.Items)
		return
	}
	for _, item := range decoded.Items {
		c.route(item)
	}
}

// hasInvalid reports whether any item is an error to answer.
func hasInvalid(items []Item) bool {
	for _, item := range items {
		if item.Err != nil {
			return true
		}
	}
	return false
}

// route handles one message that came alone on its line.
func (c *Conn) route(item Item) {
	switch m := item.Msg; {
	case m == nil:
		c.answerError(item.ErrID, item.Err)
	case m.IsResponse():
		c.deliver(m)
	case m.IsNotification():
		c.notes.push(m, c.opts.Handle != nil)
	default:
		c.serveRequest(m)
	}
}

// deliver hands an answer straight to the call waiting for it, or reports
// why none waits.
func (c *Conn) deliver(m *Message) {
	if m.ID.IsZero() {
		c.event(Event{Kind: EventPeerError, Text: m.Error.Message, Err: m.Error})
		return
	}
	call, lateMethod, late := c.state.settle(m.ID)
	switch {
	case call != nil:
		call.answer <- answerOutcome(m)
	case late:
		c.event(Event{Kind: EventLate, Method: lateMethod, ID: m.ID, Err: m.Error})
	default:
		c.event(Event{Kind: EventUnknownResponse, ID: m.ID, Err: m.Error})
	}
}

// answerOutcome turns a response into what its call returns.
func answerOutcome(m *Message) outcome {
	if m.Error != nil {
		return outcome{err: m.Error}
	}
	return outcome{result: m.Result}
}

// answerError writes an error answer, tearing the connection down if the
// write fails.
func (c *Conn) answerError(id ID, e *Error) {
	c.send(&Message{ID: id, Error: e})
}

// send writes one message; a failed write stops the connection. Writing
// after Close is not a failure, just nothing to do.
func (c *Conn) send(m *Message) {
	if err := c.out.writeMessage(m); err != nil {
		c.sendFailed(err)
	}
}

// sendFailed stops the connection after a failed write, unless the write
// failed because the connection had already stopped.
func (c *Conn) sendFailed(err error) {
	if !errors.Is(err, ErrClosed) {
		c.fail(err)
	}
}
