package jsonrpc

import (
	"errors"
	"fmt"
	"io"
	"time"
)

// readLoop is the background reader: it reads the peer's lines while it
// holds the reading token (token.go), until the stream ends or it leaves
// the token to callers reading their own answers.
//
// A request that comes alone on its line is served by the goroutine that
// read it, and a new goroutine takes over the reading (leader/follower):
// the answer then goes out without waking another goroutine, which on a
// blocking stdin (a plugin's) would wait for the scheduler to notice the
// reader blocked in its next read — tens of microseconds to milliseconds.
// Lines are still read one after the other, by one reader at a time, and
// the reader reads nothing while a bound bites (bounds.go).
func (c *Conn) readLoop() {
	for {
		o, req, status := c.readNext(nil)
		switch status {
		case readEnded:
			return
		case readKicked:
			c.deadliner.SetReadDeadline(time.Time{}) // a kick meant for a caller
			continue
		}
		if req != nil && c.inOrder(req) {
			c.serveOwed(o, req)
		} else if req != nil {
			c.serving.Add(1)
			go c.readLoop()
			c.serveOwed(o, req)
			c.serving.Done()
			return
		}
		if c.yieldToCallers() {
			return
		}
	}
}

// readStatus is what reading one line came to.
type readStatus int

const (
	readLine   readStatus = iota // a line was read and dispatched
	readQuit                     // the reader's quit condition came first
	readKicked                   // a kick interrupted the read: look again
	readEnded                    // reading is over for good; done is closed
)

// readNext waits for room under the bounds, reads one line and dispatches
// it. A request alone on its line is returned for the reader to serve.
// quit, when set, ends the wait for room early (a caller's answer came).
func (c *Conn) readNext(quit func() bool) (*owed, *Message, readStatus) {
	if !c.waitForRoom(quit) {
		if quit != nil && quit() {
			return nil, nil, readQuit
		}
		c.stopReading()
		return nil, nil, readEnded
	}
	line, tooLong, err := c.lines.Next()
	switch {
	case err != nil && isKick(err) && c.deadliner != nil:
		return nil, nil, readKicked
	case err != nil:
		c.endReading(err)
		c.stopReading()
		return nil, nil, readEnded
	case tooLong:
		c.event(Event{Kind: EventTooLong, Text: excerpt(line)})
		c.answerError(ID{}, ErrParse)
		return nil, nil, readLine
	}
	o, req := c.dispatch(line)
	return o, req, readLine
}

// stopReading records that nobody reads any more, and closes done.
func (c *Conn) stopReading() {
	c.state.update(func(s *connState) { s.token.held, s.token.ended = true, true })
	c.doneOnce.Do(func() { close(c.done) })
}

// endReading fails pending calls: no answer can come any more. A clean end
// of the stream is no error; any other read error is the cause, unless the
// connection was already stopped (Close makes the read fail).
func (c *Conn) endReading(err error) {
	if errors.Is(err, io.EOF) {
		c.end(ending{calls: ErrClosed})
		return
	}
	c.end(ending{calls: fmt.Errorf("%w: %w", ErrClosed, err), cause: err})
}

// dispatch decodes one line and routes what it holds. A request alone on
// its line is returned for the reader to serve itself, its slot taken.
func (c *Conn) dispatch(line []byte) (o *owed, request *Message) {
	decoded := decodeLine(line, &c.layout) // the token holder alone reads

	if hasInvalid(decoded.Items) {
		c.event(Event{Kind: EventBadLine, Text: excerpt(line)})
	}
	if decoded.Batch {
		c.serveBatch(decoded.Items, len(line))
		return nil, nil
	}
	for _, item := range decoded.Items {
		if m := c.route(item); m != nil {
			request = m
		}
	}
	if request == nil {
		return nil, nil
	}
	if o, now := c.takeSlot(request, len(line)); now {
		return o, request
	}
	return nil, nil
}

// takeSlot counts its line held and records a request as owed an answer,
// with a slot to be served now, or queued for the next slot free (read
// past the bound while our own calls wait for answers).
func (c *Conn) takeSlot(m *Message, lineBytes int) (o *owed, now bool) {
	o = &owed{id: m.ID, method: m.Method, lineBytes: lineBytes}
	c.state.update(func(s *connState) {
		s.held += int64(lineBytes)
		s.token.sawRequest = true
		now = s.slotOrQueue(o, m, c.limits.requests)
	})
	return o, now
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

// route handles one message that came alone on its line; a request is
// returned for the caller to serve.
func (c *Conn) route(item Item) (request *Message) {
	switch m := item.Msg; {
	case m == nil:
		c.answerError(item.ErrID, item.Err)
	case m.IsResponse():
		c.deliver(m)
	case m.IsNotification():
		c.queueNotification(m)
	default:
		return m
	}
	return nil
}

// deliver hands an answer straight to the call waiting for it, or reports
// why none waits.
func (c *Conn) deliver(m *Message) {
	if m.ID.IsZero() {
		c.event(Event{Kind: EventPeerError, Text: m.Error.Message, Err: m.Error})
		return
	}
	call, lateMethod, late := c.settle(m.ID)
	switch {
	case call != nil:
		call.answer <- answerOutcome(m)
	case late:
		c.event(Event{Kind: EventLate, Method: lateMethod, ID: m.ID, Err: m.Error})
	default:
		c.event(Event{Kind: EventUnknownResponse, ID: m.ID, Err: m.Error})
	}
}

// deliverAll is deliver for the answers of a batch, their calls found
// under one lock.
func (c *Conn) deliverAll(answers []*Message) {
	if len(answers) == 0 {
		return
	}
	type found struct {
		call       *pendingCall
		lateMethod string
		late       bool
	}
	founds := make([]found, len(answers))
	c.state.update(func(s *connState) {
		for i, m := range answers {
			if n, ok := m.ID.int64Value(); ok {
				f := &founds[i]
				f.call, f.lateMethod, f.late = s.settleLocked(n)
			}
		}
	})
	for i, m := range answers {
		switch f := founds[i]; {
		case m.ID.IsZero():
			c.event(Event{Kind: EventPeerError, Text: m.Error.Message, Err: m.Error})
		case f.call != nil:
			f.call.answer <- answerOutcome(m)
		case f.late:
			c.event(Event{Kind: EventLate, Method: f.lateMethod, ID: m.ID, Err: m.Error})
		default:
			c.event(Event{Kind: EventUnknownResponse, ID: m.ID, Err: m.Error})
		}
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
	if !errors.Is(err, ErrClosed) && !errors.Is(err, ErrLineTooLong) {
		c.fail(err)
	}
}

// inOrder reports whether m is served by its reader, before the next line
// (Options.InOrder).
func (c *Conn) inOrder(m *Message) bool {
	return c.opts.InOrder != nil && c.opts.InOrder(m.Method)
}
