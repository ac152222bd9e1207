package jsonrpc

import (
	"fmt"
	"math/bits"

	"github.com/escouade-dev/escouade-plugin/vocab"
)

// The bounds a connection keeps on what the peer makes it hold, whatever
// the peer sends (docs/protocol.md#3-messages): past one, the connection stops reading
// the peer's stream until it is back under, and the pipe then pushes back
// on the peer. The numbers are the protocol's (docs/protocol.md#numbers),
// written in the schema and read here from vocab.
const (
	// DefaultMaxRequests is how many of the peer's requests are served at
	// once when Options.MaxRequests is zero.
	DefaultMaxRequests = vocab.LimitMaxRequests
	// DefaultMaxHeld is how many bytes are held for the peer when
	// Options.MaxHeld is zero.
	DefaultMaxHeld = vocab.LimitMaxHeldBytes
	// DefaultMaxNotifications is how many of the peer's notifications wait
	// for their server when Options.MaxNotifications is zero.
	DefaultMaxNotifications = vocab.LimitMaxNotifications
	// DefaultMaxLater is how many of the peer's requests may wait for an
	// answer given later (their handler returned ErrAsyncResponse) when
	// Options.MaxLater is zero. They hold no goroutine and no request
	// slot, only their place among those owed an answer.
	DefaultMaxLater = vocab.LimitMaxLater
)

// noteOverhead is what a queued notification is counted for beyond its
// method and params: its Message and its place in the queue.
const noteOverhead = 96

// queuedOverhead is what a request waiting for a slot is counted for in
// the held bytes beyond its line: its Message, its owed entry and its
// place in the queue.
const queuedOverhead = 256

// The bounds, in the order they are checked.
const (
	boundRequests = iota
	boundHeld
	boundNotes
	boundLater
	boundCount
)

// biteCounts counts how often each bound stopped the reader.
type biteCounts [boundCount]int

// limits are a connection's bounds with the defaults applied.
type limits struct {
	requests, notes, later int
	held                   int64
	writeLine              int
	// tooLong is the answer to a request whose answer would pass
	// writeLine, and tooLongBase its size without the id.
	tooLong     *Error
	tooLongBase int
}

func newLimits(o Options) limits {
	l := limits{requests: o.MaxRequests, notes: o.MaxNotifications, later: o.MaxLater, held: int64(o.MaxHeld), writeLine: o.MaxWriteLine}
	if l.requests <= 0 {
		l.requests = DefaultMaxRequests
	}
	if l.later <= 0 {
		l.later = DefaultMaxLater
	}
	if l.notes <= 0 {
		l.notes = DefaultMaxNotifications
	}
	if l.held <= 0 {
		l.held = DefaultMaxHeld
	}
	if l.writeLine <= 0 {
		l.writeLine = DefaultMaxLine
	}
	l.tooLong = tooLongError(l.writeLine)
	l.tooLongBase = answerSize(&Message{Error: l.tooLong}) - len(nullJSON)
	return l
}

// biting returns the first bound the state is over, or -1; s.mu is held.
func (l limits) biting(s *connState) int {
	switch {
	case s.serving >= l.requests && len(s.pending) == 0:
		// With calls of ours waiting, reading goes on: their answers may
		// be behind the peer's next requests, which wait for a slot
		// (queued), bounded by the held bytes.
		return boundRequests
	case s.held >= l.held:
		return boundHeld
	case len(s.notes) >= l.notes:
		return boundNotes
	case s.later >= l.later:
		return boundLater
	}
	return -1
}

// biteText is the event text of a bound that stopped the reader for the
// n-th time.
func (l limits) biteText(bound, n int) string {
	var text string
	switch bound {
	case boundRequests:
		text = fmt.Sprintf("reading paused: %d requests served at once, the limit", l.requests)
	case boundHeld:
		text = fmt.Sprintf("reading paused: %s held for requests, answers and notifications, the limit", formatSize(int(l.held)))
	case boundNotes:
		text = fmt.Sprintf("reading paused: %d notifications queued, the limit", l.notes)
	default:
		text = fmt.Sprintf("reading paused: %d requests waiting for an answer given later, the limit", l.later)
	}
	if n > 1 {
		text += fmt.Sprintf(" (%d times so far)", n)
	}
	return text
}

// worthReporting says whether the n-th bite of a bound gets an event:
// the first, then each time the count doubles, so a flood costs a few
// journal lines and not one per line read.
func worthReporting(n int) bool {
	return n > 0 && bits.OnesCount(uint(n)) == 1
}

// formatSize spells a byte count the way limits are named: 8 MiB, 64 KiB,
// 300 bytes.
func formatSize(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// waitForRoom blocks the reader while a bound bites, reporting the bite.
// It returns false once the connection is stopped, or when quit, if set,
// reports true.
func (c *Conn) waitForRoom(quit func() bool) bool {
	s := &c.state
	s.mu.Lock()
	defer s.mu.Unlock()
	counted := -1 // the bound this pause was counted for: once, not per wake-up
	for !s.end.stopped {
		if quit != nil && quit() {
			return false
		}
		bound := c.limits.biting(s)
		if bound < 0 {
			return true
		}
		if bound != counted {
			counted = bound
			s.bites[bound]++
			if n := s.bites[bound]; worthReporting(n) {
				s.mu.Unlock()
				c.event(Event{Kind: EventBound, Text: c.limits.biteText(bound, n)})
				s.mu.Lock()
				continue // the state may have changed meanwhile
			}
		}
		s.room.Wait()
	}
	return false
}

// queuedRequest is a request read while every slot was taken.
type queuedRequest struct {
	o *owed
	m *Message
}

// slotOrQueue records o as owed an answer and takes a slot for it, or
// queues it until one is free; it reports whether it may be served now;
// s.mu is held.
func (s *connState) slotOrQueue(o *owed, m *Message, limit int) bool {
	s.owe(o)
	if s.serving < limit {
		s.serving++
		return true
	}
	s.held += queuedOverhead
	s.queued = append(s.queued, queuedRequest{o, m})
	return false
}

// nextQueued takes the first queued request when a slot is free, its slot
// taken; s.mu is held.
func (s *connState) nextQueued(limit int) (queuedRequest, bool) {
	if len(s.queued) == 0 || s.serving >= limit || s.end.stopped {
		return queuedRequest{}, false
	}
	q := s.queued[0]
	s.queued[0] = queuedRequest{}
	s.queued = s.queued[1:]
	s.held -= queuedOverhead
	s.serving++
	return q, true
}

// serveQueued serves a request that waited for a slot, on a goroutine of
// its own.
func (c *Conn) serveQueued(q queuedRequest, ok bool) {
	if !ok {
		return
	}
	c.serving.Go(func() { c.serveOwed(q.o, q.m) })
}
