package jsonrpc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"
)

// The reading token: one goroutine at a time reads the peer's stream,
// either the background reader (readLoop and its followers) or a caller
// waiting for its own answer.
//
// With two or more scheduler threads, an answer handed from a reader
// goroutine to the waiting caller costs a thread woken on the other core
// for every call, the largest share of a round trip on a quiet pipe. So a
// caller that waits without a context to watch, on a stream whose reads
// can be interrupted (a pipe *os.File or a net.Conn), takes the token when
// nobody holds it and reads until its own answer comes, as a bare program
// reading its pipe would: the thread the poller wakes is the caller's.
// Lines for others are dispatched as the background reader would: other
// answers to their callers, notifications to their server, requests to a
// goroutine each.
//
// Nobody holds the token between two calls. So that the peer is still
// read when no call comes (its notifications, its requests, the end of
// its stream), a timer starts the background reader idleRead after the
// token was left free, and a caller that leaves it with calls still
// waiting starts it at once. The background reader leaves the token again
// after delivering an answer when no call waits and the last of the
// peer's messages it read was not a request: a connection that mostly
// calls goes back to callers reading, one being asked keeps its reader.
// A plugin's stdin, a blocking file, cannot be interrupted: its reader
// never leaves the token.
type readerToken struct {
	held     bool // a goroutine reads, or is about to
	byCaller bool // the holder is a caller: a deadline must interrupt its read
	ended    bool // the stream ended or failed: nobody reads again
	// sawRequest and delivered describe the background reader's tenure:
	// whether the peer sent a request since the last answer went to a
	// call, and how many answers did.
	sawRequest bool
	delivered  int
	idle       *time.Timer
	idleArmed  bool
}

// idleRead is how long the token stays free before the background reader
// takes it.
const idleRead = time.Millisecond

// readDeadliner is a stream whose blocked read can be interrupted.
type readDeadliner interface {
	SetReadDeadline(time.Time) error
}

// interruptible returns r's deadline setter when reads of r can be
// interrupted, so that callers may read their own answers.
func interruptible(r any) readDeadliner {
	d, ok := r.(readDeadliner)
	if !ok || d.SetReadDeadline(time.Time{}) != nil {
		return nil
	}
	return d
}

// kick interrupts the read of a caller holding the token: one of the
// calls it may be waiting for has just been given its outcome. The read
// fails with os.ErrDeadlineExceeded, which readers take as a wake-up.
func (c *Conn) kick() {
	c.deadliner.SetReadDeadline(time.Now())
}

// isKick reports whether a read error is a kick, not the end of reading.
func isKick(err error) bool { return errors.Is(err, os.ErrDeadlineExceeded) }

// takeToken gives the token to a caller when nobody holds it.
func (c *Conn) takeToken() (taken bool) {
	c.state.update(func(s *connState) {
		if s.token.held || s.end.stopped {
			return
		}
		s.token.held, s.token.byCaller, taken = true, true, true
	})
	return taken
}

// leaveToken is a caller giving the token back once it has its answer:
// the background reader starts now if other calls wait, or after idleRead
// if nobody took the token meanwhile.
func (c *Conn) leaveToken() {
	var start bool
	c.state.update(func(s *connState) {
		s.token.held, s.token.byCaller = false, false
		if s.token.ended || s.end.stopped {
			return
		}
		if len(s.pending) > 0 {
			start = s.startReader()
			return
		}
		c.armIdle(s)
	})
	if start {
		go c.readLoop()
	}
}

// startReader gives the token to a new background reader; s.mu is held.
func (s *connState) startReader() bool {
	s.token.held, s.token.byCaller = true, false
	s.token.sawRequest, s.token.delivered = false, 0
	return true
}

// armIdle arms the timer that starts the background reader; s.mu is held.
func (c *Conn) armIdle(s *connState) {
	if s.token.idleArmed {
		return
	}
	s.token.idleArmed = true
	if s.token.idle == nil {
		s.token.idle = time.AfterFunc(idleRead, c.idleReader)
		return
	}
	s.token.idle.Reset(idleRead)
}

// idleReader starts the background reader when the token is still free.
func (c *Conn) idleReader() {
	var start bool
	c.state.update(func(s *connState) {
		s.token.idleArmed = false
		if !s.token.held && !s.token.ended && !s.end.stopped {
			start = s.startReader()
		}
	})
	if start {
		c.readLoop()
	}
}

// yieldToCallers is the background reader leaving the token after a line
// when the connection is back to callers reading their answers.
func (c *Conn) yieldToCallers() (yielded bool) {
	if c.deadliner == nil {
		return false
	}
	c.state.update(func(s *connState) {
		t := &s.token
		if t.sawRequest || t.delivered == 0 || len(s.pending) > 0 || t.ended || s.end.stopped {
			return
		}
		t.held, yielded = false, true
		c.armIdle(s)
	})
	return yielded
}

// readOwnAnswer is a caller reading the stream until call has its
// outcome or ctx ends, when it can take the token; ok is false when it
// cannot, and the caller waits as usual. The end of ctx interrupts the
// read.
func (c *Conn) readOwnAnswer(ctx context.Context, call *pendingCall) (out outcome, ok bool) {
	if c.deadliner == nil || !c.takeToken() {
		return outcome{}, false
	}
	var stopKick func() bool
	if ctx.Done() != nil {
		stopKick = context.AfterFunc(ctx, c.kick)
	}
	quit := func() bool { return len(call.answer) > 0 || ctx.Err() != nil }
	for !quit() {
		o, req, status := c.readNext(quit)
		switch status {
		case readEnded:
			if stopKick != nil {
				stopKick()
			}
			return <-call.answer, true // the end failed it, if nothing else did
		case readKicked:
			c.deadliner.SetReadDeadline(time.Time{})
		}
		switch {
		case req != nil && c.inOrder(req):
			c.serveOwed(o, req)
		case req != nil:
			c.serving.Go(func() { c.serveOwed(o, req) })
		}
	}
	if stopKick != nil {
		stopKick()
	}
	c.leaveToken()
	select {
	case out = <-call.answer:
		return out, true
	default:
	}
	if !c.abandon(call) {
		return <-call.answer, true // given just now, or failed by the end
	}
	return outcome{err: fmt.Errorf("jsonrpc: %s (id %d): %w", call.method, call.id, ctx.Err())}, true
}
