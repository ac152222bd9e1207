package jsonrpc

import (
	"strconv"
	"sync/atomic"
)

// serveBatch routes the members of a batch from the peer and answers its
// requests and invalid members with one array once all are answered.
// Responses in it (the peer answering our batch) go to their calls, and
// notifications to their server.
//
// Each request takes one of the Options.MaxRequests slots before it is
// served, or waits for one in the queue (its bytes counted), so a batch of
// thousands is served a bounded number at a time while the reader reads
// on. A batch whose answer
// could not fit in one line even if every request were answered with the
// shortest error is refused whole, before anything is served.
func (c *Conn) serveBatch(items []Item, lineBytes int) {
	reply := &batchReply{conn: c, limit: int64(c.limits.writeLine), lineBytes: int64(lineBytes)}
	var requests, responses []*Message
	fixed := int64(2) // the brackets
	for _, item := range items {
		switch m := item.Msg; {
		case m == nil:
			answer := Message{ID: item.ErrID, Error: item.Err}
			fixed += int64(answerSize(&answer)) + 1
			reply.answers = append(reply.answers, answer)
		case m.IsResponse():
			responses = append(responses, m)
		case m.IsNotification():
			c.queueNotification(m)
		default:
			requests = append(requests, m)
			fixed += int64(c.tooLongSize(m.ID)) + 1
		}
	}
	c.deliverAll(responses)
	if len(reply.answers)+len(requests) == 0 {
		return // a batch of notifications and answers only gets nothing
	}
	if fixed > reply.limit {
		c.refuseBatch(len(requests))
		return
	}
	reply.used.Store(fixed)
	reply.waiting.Store(int32(len(requests)) + 1) // one more for the dispatch itself
	c.state.update(func(s *connState) {
		s.held += int64(lineBytes)
		s.token.sawRequest = s.token.sawRequest || len(requests) > 0
	})
	first := len(reply.answers)
	reply.answers = append(reply.answers, make([]Message, len(requests))...)
	oweds := make([]owed, len(requests)) // one allocation for the batch
	reply.oweds = oweds
	for k, m := range requests {
		o := &oweds[k]
		*o = owed{id: m.ID, method: m.Method, reply: reply, index: first + k}
		var now, stopped bool
		c.state.update(func(s *connState) {
			if stopped = s.end.stopped; !stopped {
				now = s.slotOrQueue(o, m, c.limits.requests)
			}
		})
		if stopped {
			return // nothing will be written
		}
		switch {
		case now && c.inOrder(m):
			c.serveOwed(o, m)
		case now:
			c.serving.Go(func() { c.serveOwed(o, m) })
		}
	}
	reply.done()
}

// refuseBatch answers a batch whose answer cannot fit in one line with
// one error naming the limit.
func (c *Conn) refuseBatch(requests int) {
	e := c.tooLongError()
	c.event(Event{Kind: EventAnswerTooLong, Text: e.Message + ": a batch of " + strconv.Itoa(requests) + " requests refused"})
	c.send(&Message{Error: e})
}

// tooLongSize is the size of the answer under id that says an answer
// would pass the line limit: what every request of a batch is kept room
// for, so that the batch's answer always fits.
func (c *Conn) tooLongSize(id ID) int {
	return c.limits.tooLongBase + len(id.Raw())
}

// batchReply gathers the answers to one batch from the peer. Answers land
// in their own index, so members never contend for a lock; used and
// waiting are atomic.
type batchReply struct {
	conn    *Conn
	answers []Message
	oweds   []owed // its requests, whose AnswerSent hooks follow the array
	limit   int64  // the longest line
	// used is the size of the answer line so far: the answers recorded,
	// and for each request still unanswered the room its too-long error
	// would take.
	used      atomic.Int64
	waiting   atomic.Int32 // requests unanswered, plus one until all are dispatched
	held      atomic.Int64 // the answers' bytes counted in the held bytes
	lineBytes int64
}

// record stores the answer to o, if o is still owed one, and frees its
// request's slot, all under one lock; the last answer sends the array. An
// answer that would make the line pass the limit is replaced by the error
// naming it, whose room was kept.
func (b *batchReply) record(o *owed, answer Message, sent func()) {
	c := b.conn
	size := int64(answerSize(&answer))
	kept := int64(c.tooLongSize(answer.ID))
	fits := b.reserve(size - kept)
	if !fits {
		size = kept
	}
	var fresh, ok bool
	var next queuedRequest
	c.state.update(func(s *connState) {
		if fresh = s.settleOwed(o); fresh {
			s.release(o)
			s.held += size
			next, ok = s.nextQueued(c.limits.requests)
		}
	})
	c.serveQueued(next, ok)
	if !fresh {
		if fits {
			b.used.Add(kept - size) // give the room back
		}
		if sent != nil {
			sent()
		}
		return
	}
	if !fits {
		c.answerTooLong(o.method, answer.ID)
		answer = Message{ID: answer.ID, Error: c.tooLongError()}
	}
	b.answers[o.index] = answer
	o.sent = sent // called once the array is written (done)
	b.held.Add(size)
	b.done()
}

// reserve grows the line by delta when it still fits.
func (b *batchReply) reserve(delta int64) bool {
	for {
		used := b.used.Load()
		if used+delta > b.limit {
			return false
		}
		if b.used.CompareAndSwap(used, used+delta) {
			return true
		}
	}
}

// done counts one answer, or the end of the dispatch, and sends the
// array after the last.
func (b *batchReply) done() {
	if b.waiting.Add(-1) != 0 {
		return
	}
	c := b.conn
	if err := c.out.writeArray(b.answers); err != nil {
		c.sendFailed(err)
	}
	for i := range b.oweds {
		if sent := b.oweds[i].sent; sent != nil {
			sent()
		}
	}
	released := b.held.Load() + b.lineBytes
	c.state.update(func(s *connState) { s.held -= released })
}
