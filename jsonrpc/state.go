package jsonrpc

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// connState is all the state a connection's goroutines share, behind one
// mutex: the calls waiting for an answer and their deadlines, the ids of
// calls that stopped waiting, the requests being served and the answers
// owed to the peer, what the bounds count, and how the connection ended.
// Every change goes through update, which also wakes the reader when the
// change may have made room for it.
type connState struct {
	mu sync.Mutex
	// room is signalled when a bound may no longer bite or the connection
	// stopped; the reader waits on it.
	room sync.Cond

	nextID  int64
	pending map[int64]*pendingCall
	late    lateIDs
	timers  deadlines

	serving int // requests whose handler runs
	later   int // requests whose handler returned ErrAsyncResponse, not yet answered
	// queued are requests read while every slot was taken, which wait for
	// one: the reader reads on past the request bound while our own calls
	// wait for answers, so that a handler waiting on the peer is answered.
	queued []queuedRequest
	owed   map[string]*owed // requests owed an answer, by id text
	notes  []*Message       // notifications waiting for their server
	held   int64            // bytes held for the peer, see bounds.go
	bites  biteCounts

	end   ending
	token readerToken

	// spare holds calls that are done, their answer channel empty, for
	// reuse: a call then costs no allocation. A sync.Pool has its own
	// lock and is used outside mu.
	spare sync.Pool
}

// ending is how the connection ended, all in one value.
type ending struct {
	// calls is non-nil once no call can be answered any more: the error
	// calls get from then on.
	calls error
	// cause is why the connection ended: nil for the end of the peer's
	// stream or Close, the read or write error otherwise.
	cause error
	// stopped is set by Close or a failed write: nothing more is read,
	// written or served.
	stopped bool
}

// pendingCall is one call waiting for its answer.
type pendingCall struct {
	id     int64
	method string
	// answer receives exactly one outcome, from whoever removes the call
	// from pending: the reader, the deadline timer or the end of the
	// connection. Its buffer of one means that sender never blocks.
	answer chan outcome
	// deadline is when the connection stops waiting for it (zero: never),
	// and delay the list of calls it is kept in for that.
	deadline   time.Time
	delay      time.Duration
	prev, next *pendingCall
}

// outcome is what a call ends with.
type outcome struct {
	result json.RawMessage
	err    error
}

func (s *connState) init(lateMemory int) {
	s.room.L = &s.mu
	s.pending = make(map[int64]*pendingCall)
	s.late = lateIDs{limit: lateMemory, methods: make(map[int64]string)}
	s.owed = make(map[string]*owed)
}

// update runs change under the state's mutex, then wakes the reader in
// case the change made room for it. It is the one way the state changes.
func (s *connState) update(change func(s *connState)) {
	s.mu.Lock()
	change(s)
	s.mu.Unlock()
	s.room.Broadcast() // cheap when nobody waits
}

// startCalls registers calls under fresh ids, all or none, each with its
// delay (zero: none); it fails once the connection has ended.
func (c *Conn) startCalls(methods []string, delays func(int) time.Duration) (calls []*pendingCall, err error) {
	calls = make([]*pendingCall, len(methods))
	c.state.update(func(s *connState) {
		if err = s.end.calls; err != nil {
			return
		}
		now := time.Now()
		for i, method := range methods {
			calls[i] = s.register(method, delays(i), now, c)
		}
	})
	return calls, err
}

// startCall is startCalls for a single call, without the slices.
func (c *Conn) startCall(method string, delay time.Duration) (call *pendingCall, err error) {
	c.state.update(func(s *connState) {
		if err = s.end.calls; err != nil {
			return
		}
		var now time.Time
		if delay > 0 {
			now = time.Now()
		}
		call = s.register(method, delay, now, c)
	})
	return call, err
}

// register adds a call under the next id; s.mu is held.
func (s *connState) register(method string, delay time.Duration, now time.Time, c *Conn) *pendingCall {
	s.nextID++
	call, _ := s.spare.Get().(*pendingCall)
	if call == nil {
		call = &pendingCall{answer: make(chan outcome, 1)}
	}
	call.id, call.method = s.nextID, method
	s.pending[call.id] = call
	if delay > 0 {
		s.timers.add(call, delay, now, c)
	}
	return call
}

// releaseCall gives back a call whose outcome has been received, or that
// was abandoned: nothing refers to it any more and its channel is empty.
func (s *connState) releaseCall(call *pendingCall) {
	*call = pendingCall{answer: call.answer}
	s.spare.Put(call)
}

// settle removes the call an answer is for. When no call waits for it,
// lateMethod names the call that stopped waiting, if it is remembered.
func (c *Conn) settle(id ID) (call *pendingCall, lateMethod string, late bool) {
	n, ok := id.int64Value()
	if !ok {
		return nil, "", false
	}
	c.state.update(func(s *connState) { call, lateMethod, late = s.settleLocked(n) })
	return call, lateMethod, late
}

// settleLocked is settle for the integer id n; s.mu is held.
func (s *connState) settleLocked(n int64) (call *pendingCall, lateMethod string, late bool) {
	if call = s.pending[n]; call != nil {
		s.forgetCall(call)
		s.token.delivered++
		s.token.sawRequest = false
		return call, "", false
	}
	lateMethod, late = s.late.forget(n)
	return nil, lateMethod, late
}

// forgetCall removes a call from pending and from its deadline list.
func (s *connState) forgetCall(call *pendingCall) {
	delete(s.pending, call.id)
	if call.delay > 0 {
		s.timers.remove(call)
	}
}

// abandon stops waiting for a call and remembers its id so that a late
// answer can be told from noise. It reports false when the call has already
// been given its outcome, which the caller must then receive.
func (c *Conn) abandon(call *pendingCall) (abandoned bool) {
	c.state.update(func(s *connState) {
		if s.pending[call.id] != call {
			return
		}
		s.forgetCall(call)
		s.late.remember(call.id, call.method)
		abandoned = true
	})
	return abandoned
}

// expire fails the calls whose deadline has passed, as a context deadline
// would, and remembers their ids for late answers; s.mu is held. It
// reports whether any expired.
func (s *connState) expire(now time.Time) (expired bool) {
	for _, list := range s.timers.lists {
		for call := list.head; call != nil && !call.deadline.After(now); call = list.head {
			expired = true
			s.forgetCall(call)
			s.late.remember(call.id, call.method)
			call.answer <- outcome{err: fmt.Errorf("jsonrpc: %s (id %d): %w", call.method, call.id, context.DeadlineExceeded)}
		}
	}
	return expired
}

// endWith applies one step of the end of the connection: the first error
// given to calls and the first cause count, and stopping is for good. It
// fails the pending calls and drops the owed answers as they become
// impossible, and reports whether this step stopped the connection.
func (s *connState) endWith(e ending) (stopped bool) {
	if s.end.calls == nil && e.calls != nil {
		s.end.calls, s.end.cause = e.calls, e.cause
		for _, call := range s.pending {
			call.answer <- outcome{err: e.calls}
		}
		s.pending = nil
		s.timers.stop()
	}
	if e.stopped && !s.end.stopped {
		s.end.stopped = true
		s.dropOwed()
		stopped = true
	}
	return stopped
}

// lateIDs remembers the methods of the last limit calls that stopped
// waiting, forgetting the oldest first.
type lateIDs struct {
	limit   int
	methods map[int64]string
	ring    []int64 // ids in the order they were remembered
	oldest  int     // where the next id goes once ring is full
}

func (l *lateIDs) remember(id int64, method string) {
	if l.limit <= 0 {
		return
	}
	if len(l.ring) < l.limit {
		l.ring = append(l.ring, id)
	} else {
		delete(l.methods, l.ring[l.oldest])
		l.ring[l.oldest] = id
		l.oldest = (l.oldest + 1) % l.limit
	}
	l.methods[id] = method
}

// forget returns the method of a remembered id and forgets it, so that a
// second answer to the same call counts as unknown.
func (l *lateIDs) forget(id int64) (string, bool) {
	method, ok := l.methods[id]
	delete(l.methods, id)
	return method, ok
}
