package jsonrpc

import (
	"errors"
	"fmt"
	"runtime/debug"
)

// stack is the stack of the goroutine recovering from a panic, for the
// event that reports it.
func stack() string { return string(debug.Stack()) }

// ErrAsyncResponse, returned by a handler, means the handler answers
// later through Conn.Respond: nothing is sent now, and the request gives
// back its place among those served at once (Options.MaxRequests) and
// the bytes of its line: while it waits it holds no goroutine of the
// connection and no slot, and counts only among those answered later
// (Options.MaxLater). In a batch, the batch's answer waits for it.
var ErrAsyncResponse = errors.New("jsonrpc: the answer will be sent by Respond")

// ErrNotOwed is returned by Respond for an id that no request waiting for
// an answer has: never received, already answered, or dropped by Close.
var ErrNotOwed = errors.New("jsonrpc: no request under that id waits for an answer")

// owed is one of the peer's requests from the moment it is read until it
// is answered: by its handler's return, or later by Respond.
type owed struct {
	id     ID
	method string
	// reply is the batch the request came in, nil for a request alone on
	// its line; index is its answer's place in the batch's answer.
	reply *batchReply
	index int
	// lineBytes is what its line is counted for in the held bytes, for a
	// request alone on its line.
	lineBytes int
	answered  bool
	// later is set once its handler returned ErrAsyncResponse and its slot
	// was given back: it then counts among those answered later.
	later bool
	next  *owed // the next request in service under the same id
	// sent is the AnswerSent of a batch member's result, called once the
	// batch's answer is written.
	sent func()
}

// owe records a request being served, its slot already counted; s.mu is
// held. Requests under the same id are kept in the order they came.
func (s *connState) owe(o *owed) {
	first := s.owed[o.id.raw]
	if first == nil {
		s.owed[o.id.raw] = o
		return
	}
	last := first
	for last.next != nil {
		last = last.next
	}
	last.next = o
}

// settleOwed takes o out of the requests in service; it reports false
// when o was already answered; s.mu is held.
func (s *connState) settleOwed(o *owed) bool {
	if o.answered {
		return false
	}
	o.answered = true
	first := s.owed[o.id.raw]
	switch {
	case first == o && o.next == nil:
		delete(s.owed, o.id.raw)
	case first == o:
		s.owed[o.id.raw] = o.next
	default:
		for prev := first; prev != nil; prev = prev.next {
			if prev.next == o {
				prev.next = o.next
				break
			}
		}
	}
	o.next = nil
	return true
}

// dropOwed forgets every request waiting for an answer: the connection
// stopped and none can be written any more; s.mu is held.
func (s *connState) dropOwed() {
	for _, o := range s.owed {
		for ; o != nil; o = o.next {
			o.answered = true
		}
	}
	clear(s.owed)
	s.queued = nil
}

// serveOwed serves a request, alone on its line or a member of a batch,
// and writes or records its answer, unless the handler answers later.
func (c *Conn) serveOwed(o *owed, m *Message) {
	result, err := c.handle(m)
	if errors.Is(err, ErrAsyncResponse) {
		c.handOff(o)
		return
	}
	c.finish(o, response(m.ID, result, err), sentHook(result))
}

// handOff gives back the slot and the line's bytes of a request whose
// handler answers later, and counts it among those answered later, unless
// Respond already answered it.
func (c *Conn) handOff(o *owed) {
	var next queuedRequest
	var ok bool
	c.state.update(func(s *connState) {
		if o.answered {
			return
		}
		o.later = true
		s.serving--
		s.later++
		s.held -= int64(o.lineBytes)
		o.lineBytes = 0
		next, ok = s.nextQueued(c.limits.requests)
	})
	c.serveQueued(next, ok)
}

// release counts one request owed an answer less, its answer settled:
// a slot, or one of those answered later; s.mu is held.
func (s *connState) release(o *owed) {
	if o.later {
		s.later--
		return
	}
	s.serving--
}

// response builds the answer under id to a handler's result or error.
func response(id ID, result any, err error) Message {
	if err != nil {
		return Message{ID: id, Error: wireError(err)}
	}
	raw, err := marshalValue(result)
	if err != nil {
		return Message{ID: id, Error: wireError(err)}
	}
	return Message{ID: id, Result: raw}
}

// handle runs the handler, turning a panic into -32603 and an event: one
// bad handler must not take the program and every call under way down.
func (c *Conn) handle(m *Message) (result any, err error) {
	if c.opts.Handle == nil {
		return nil, ErrMethodNotFound
	}
	defer func() {
		if v := recover(); v != nil {
			c.event(Event{Kind: EventHandlerPanic, Method: m.Method, ID: m.ID, Text: fmt.Sprint(v), Stack: stack()})
			result, err = nil, &Error{Code: ErrInternal.Code, Message: ErrInternal.Message + ": " + m.Method + " panicked"}
		}
	}()
	return c.opts.Handle(c.serveCtx, m)
}

// finish sends the answer to a request still owed: on its own line, or
// into its batch's answer. An answer to a request already answered, or
// dropped by Close, is dropped too.
func (c *Conn) finish(o *owed, answer Message, sent func()) {
	if o.reply != nil {
		o.reply.record(o, answer, sent)
		return
	}
	if sent != nil {
		defer sent()
	}
	size := int64(answerSize(&answer))
	var fresh bool
	c.state.update(func(s *connState) {
		if fresh = s.settleOwed(o); fresh {
			s.held += size
		}
	})
	if !fresh {
		return
	}
	c.writeAnswer(&answer, o.method)
	var next queuedRequest
	var ok bool
	c.state.update(func(s *connState) {
		s.release(o)
		s.held -= size + int64(o.lineBytes)
		next, ok = s.nextQueued(c.limits.requests)
	})
	c.serveQueued(next, ok)
}

// writeAnswer writes one answer on its own line; one that would pass the
// line limit is replaced by the error naming it.
func (c *Conn) writeAnswer(answer *Message, method string) {
	err := c.out.writeMessage(answer)
	if errors.Is(err, ErrLineTooLong) {
		c.answerTooLong(method, answer.ID)
		tooLong := Message{ID: answer.ID, Error: c.tooLongError()}
		err = c.out.writeMessage(&tooLong)
	}
	if err != nil {
		c.sendFailed(err)
	}
}

// tooLongError is the answer to a request whose answer would not fit in
// one line: -32004 naming the limit.
func (c *Conn) tooLongError() *Error { return c.limits.tooLong }

// tooLongError is the -32004 error of an answer that would pass a line
// limit of max bytes.
func tooLongError(max int) *Error {
	return &Error{Code: ErrFailed.Code, Message: fmt.Sprintf("the answer would exceed the %s line limit", formatSize(max))}
}

// answerTooLong reports an answer replaced by the error naming the limit.
func (c *Conn) answerTooLong(method string, id ID) {
	c.event(Event{Kind: EventAnswerTooLong, Method: method, ID: id, Text: c.tooLongError().Message})
}

// Respond answers a request whose handler returned ErrAsyncResponse, with
// a result or an error as a handler would return them. The answer goes on
// its own line, or, for a member of a batch, into the batch's answer,
// written once every member is answered. Respond fails with ErrNotOwed
// when no request under id waits for an answer (of requests that share an
// id, the first one read is answered first), and with ErrClosed once the
// connection is stopped.
func (c *Conn) Respond(id ID, result any, err error) error {
	var o *owed
	var stopped bool
	c.state.update(func(s *connState) {
		stopped = s.end.stopped
		for o = s.owed[id.raw]; o != nil && o.answered; o = o.next {
		}
	})
	switch {
	case stopped:
		return ErrClosed
	case o == nil:
		return fmt.Errorf("%w: %s", ErrNotOwed, id)
	}
	c.finish(o, response(id, result, err), sentHook(result))
	return nil
}

// AnswerSent is a result that is told when the line holding its answer
// has been written (or will never be: dropped, or the write failed). A
// handler whose notifications must follow its answer on the wire (a
// stream's chunks after the answer that names the stream) waits for it:
// the answer is encoded before the line is written, and a batch's answer
// is written only once its every member is answered.
type AnswerSent interface {
	AnswerSent()
}

// sentHook is what to call once result's answer is written: its
// AnswerSent, or nil.
func sentHook(result any) func() {
	if r, ok := result.(AnswerSent); ok {
		return r.AnswerSent
	}
	return nil
}
