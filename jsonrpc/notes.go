package jsonrpc

import "fmt"

// queueNotification hands a notification from the reader to the one
// goroutine that serves them, in order, without blocking the reader: the
// queue is bounded by the reader, which reads nothing more while
// Options.MaxNotifications are queued or the held bytes are over
// Options.MaxHeld (bounds.go). A notification of a method served in order
// (Options.InOrder) is served by the reader itself, before the next line,
// ahead of queued ones of other methods. Without a handler it is dropped.
func (c *Conn) queueNotification(m *Message) {
	if c.opts.Handle == nil {
		return
	}
	if c.inOrder(m) {
		// Served by the reader before the next line, as an in-order
		// request is: a log sent before an answer is kept before the
		// caller has the answer.
		c.handleNotification(m)
		return
	}
	size := noteSize(m)
	c.state.update(func(s *connState) {
		s.notes = append(s.notes, m)
		s.held += size
	})
	select {
	case c.noteReady <- struct{}{}:
	default:
	}
}

// noteSize is what a queued notification counts for in the held bytes.
func noteSize(m *Message) int64 {
	return int64(len(m.Method) + len(m.Params) + noteOverhead)
}

// takeNotifications empties the queue. The notifications taken stay
// counted in the held bytes until they are served.
func (c *Conn) takeNotifications() (notes []*Message) {
	c.state.update(func(s *connState) {
		notes = s.notes
		s.notes = nil
	})
	return notes
}

// serveNotifications serves notifications in order until the reader has
// stopped and the queue is drained.
func (c *Conn) serveNotifications() {
	for {
		c.serveNotes(c.takeNotifications())
		select {
		case <-c.noteReady:
		case <-c.done:
			c.serveNotes(c.takeNotifications())
			return
		}
	}
}

// serveNotes serves notifications one after the other, then gives their
// bytes back to the bound.
func (c *Conn) serveNotes(notes []*Message) {
	if len(notes) == 0 {
		return
	}
	var size int64
	for _, m := range notes {
		c.handleNotification(m)
		size += noteSize(m)
	}
	c.state.update(func(s *connState) { s.held -= size })
}

// handleNotification runs the handler for one notification; a panic is
// reported, and the next notification is served as usual.
func (c *Conn) handleNotification(m *Message) {
	defer func() {
		if v := recover(); v != nil {
			c.event(Event{Kind: EventHandlerPanic, Method: m.Method, Text: fmt.Sprint(v), Stack: stack()})
		}
	}()
	c.opts.Handle(c.serveCtx, m)
}
