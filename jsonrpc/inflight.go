package jsonrpc

import (
	"encoding/json"
	"sync"
)

// inflight is all the state shared between callers and the reader: the
// calls waiting for an answer, the ids of calls that stopped waiting, and
// whether the connection has ended. One mutex guards it all.
type inflight struct {
	mu      sync.Mutex
	nextID  int64
	pending map[int64]*pendingCall
	late    lateIDs
	ended   error // the error calls get once the connection has ended
	cause   error // why the connection ended; nil for EOF or Close

	// spare holds calls that are done, their answer channel empty, for
	// reuse: a call then costs no allocation.
	spare sync.Pool
}

// pendingCall is one call waiting for its answer.
type pendingCall struct {
	id     int64
	method string
	// answer receives exactly one outcome, from whoever removes the call
	// from pending: the reader, or the end of the connection. Its buffer
	// of one means that sender never blocks.
	answer chan outcome
}

// outcome is what a call ends with.
type outcome struct {
	result json.RawMessage
	err    error
}

func newInflight(lateMemory int) *inflight {
	return &inflight{
		pending: make(map[int64]*pendingCall),
		late:    lateIDs{limit: lateMemory, methods: make(map[int64]string)},
	}
}

// start registers calls under fresh ids, all or none: it fails once the
// connection has ended.
func (s *inflight) start(methods []string) ([]*pendingCall, error) {
	calls := make([]*pendingCall, len(methods))
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended != nil {
		return nil, s.ended
	}
	for i, method := range methods {
		calls[i] = s.register(method)
	}
	return calls, nil
}

// startOne is start for a single call, without the slices.
func (s *inflight) startOne(method string) (*pendingCall, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended != nil {
		return nil, s.ended
	}
	return s.register(method), nil
}

// register adds a call under the next id; s.mu is held.
func (s *inflight) register(method string) *pendingCall {
	s.nextID++
	call, _ := s.spare.Get().(*pendingCall)
	if call == nil {
		call = &pendingCall{answer: make(chan outcome, 1)}
	}
	call.id, call.method = s.nextID, method
	s.pending[call.id] = call
	return call
}

// release gives back a call whose outcome has been received, or that was
// abandoned: nothing refers to it any more and its channel is empty.
func (s *inflight) release(call *pendingCall) {
	call.method = ""
	s.spare.Put(call)
}

// settle removes the call an answer is for. When no call waits for it,
// lateMethod names the call that stopped waiting, if it is remembered.
func (s *inflight) settle(id ID) (call *pendingCall, lateMethod string, late bool) {
	n, ok := id.int64Value()
	if !ok {
		return nil, "", false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if call = s.pending[n]; call != nil {
		delete(s.pending, n)
		return call, "", false
	}
	lateMethod, late = s.late.forget(n)
	return nil, lateMethod, late
}

// abandon stops waiting for a call and remembers its id so that a late
// answer can be told from noise. It reports false when the call has already
// been given its outcome, which the caller must then receive.
func (s *inflight) abandon(call *pendingCall) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending[call.id] != call {
		return false
	}
	delete(s.pending, call.id)
	s.late.remember(call.id, call.method)
	return true
}

// end marks the connection ended with cause and fails every pending call
// with callErr. Only the first end counts; it reports whether this was it.
func (s *inflight) end(cause, callErr error) bool {
	s.mu.Lock()
	if s.ended != nil {
		s.mu.Unlock()
		return false
	}
	s.ended, s.cause = callErr, cause
	pending := s.pending
	s.pending = nil
	s.mu.Unlock()
	for _, call := range pending {
		call.answer <- outcome{err: callErr}
	}
	return true
}

// hasEnded reports whether the connection has ended.
func (s *inflight) hasEnded() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ended != nil
}

// endCause returns why the connection ended.
func (s *inflight) endCause() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cause
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
