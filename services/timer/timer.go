// Package timer holds the timers of one module instance (plugin protocol
// 1, docs/protocol.md#timer and #limits): timer/set {ms} → {timer}, timer/clear {timer} → null,
// and the notification timer/fired {timer} the host sends when a timer is
// due. A module has no clock that wakes it between turns, so it asks the
// host for one; a process has its own and is answered -32601 for these
// methods (the host registers this service for module programs only).
// Example sets a timer and sees it fire.
//
// The host makes one per instance of a module program through its
// ModuleServices, and closes it when the instance ends (Example_host).
//
// Rules:
//
//   - A delay under 10 ms is raised to 10 ms (MinDelay).
//   - At most 64 timers are pending at once (MaxPending); the 65th set is
//     refused with -32003 and the reason "65 timers pending: at most 64 at
//     once". A timer stops being pending when it fires or is cleared.
//   - Timers fire in the order of their due time; timers due at the same
//     time fire in the order they were set. One notification goes out at a
//     time, so the plugin reads them in that order.
//   - Ids count from 1 and are never reused within the instance.
//   - timer/clear of a timer that already fired, was cleared or never
//     existed answers null, as clearTimeout does: the plugin cannot know
//     whether a fired notification is already on its way.
//   - Close stops every pending timer: no timer/fired is sent after it
//     returns.
package timer

import (
	"bytes"
	"container/heap"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/escouade-dev/escouade-plugin/protocol"
	"github.com/escouade-dev/escouade-plugin/services"
	"github.com/escouade-dev/escouade-plugin/vocab"
	"github.com/escouade-dev/escouade-plugin/vocab/proto"
)

// The limits of docs/protocol.md#limits.
const (
	// MinDelay is the shortest delay: a shorter one is raised to it.
	MinDelay = protocol.TimerMinDelay
	// MaxPending is how many timers an instance may hold at once.
	MaxPending = protocol.TimerMaxPending
	// MaxMs is the largest ms timer/set takes (2^31-1, as setTimeout).
	MaxMs = math.MaxInt32
)

// TagDropped is the journal tag of a timer/fired that could not be sent.
const TagDropped = services.TagDropped

// Config is what a Service needs from its host.
type Config struct {
	// Peer receives timer/fired. It must be set.
	Peer services.Peer
	// Journal receives the lines the service has to say (tag "dropped": a
	// timer/fired the peer did not take). Nil writes nothing. Refusals are
	// the host's to journal, as for every service.
	Journal func(tag, text string)
	// AfterFunc calls f in its own goroutine after d and returns what stops
	// it, as time.AfterFunc(d, f).Stop; nil means time.AfterFunc. Tests
	// inject their own clock here.
	AfterFunc func(d time.Duration, f func()) (stop func() bool)
	// Now is the clock due times are counted on; nil means time.Now.
	Now func() time.Time
}

// Service is the timers of one instance. It is safe for concurrent use.
type Service struct {
	peer      services.Peer
	journal   func(tag, text string)
	afterFunc func(d time.Duration, f func()) (stop func() bool)
	now       func() time.Time

	// deliver is held while a batch of due timers is taken from the queue
	// and notified, so that two wake-ups never interleave their batches.
	deliver sync.Mutex

	mu      sync.Mutex
	lastID  proto.TimerID
	pending map[proto.TimerID]*entry // set, neither fired nor cleared
	queue   queue                    // the pending timers by due time, then id
	wake    func() bool              // stops the armed wake-up; nil when none
	wakeAt  time.Time                // when the armed wake-up comes
	closed  bool
}

var _ services.Service = (*Service)(nil)

// New returns the timers of one instance, none pending.
func New(c Config) *Service {
	s := &Service{
		peer:      c.Peer,
		journal:   c.Journal,
		afterFunc: c.AfterFunc,
		now:       c.Now,
		pending:   make(map[proto.TimerID]*entry),
	}
	if s.afterFunc == nil {
		s.afterFunc = func(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.journal == nil {
		s.journal = func(string, string) {}
	}
	return s
}

// InOrder names timer/set and timer/clear: the 65th timer/set of the
// lines is the one refused (docs/protocol.md#timer), and a clear follows
// the set before it.
func (s *Service) InOrder() []string {
	return []string{vocab.MethodTimerSet, vocab.MethodTimerClear}
}

// Methods gives timer/set and timer/clear.
func (s *Service) Methods() map[string]services.Handler {
	return map[string]services.Handler{
		vocab.MethodTimerSet:   s.set,
		vocab.MethodTimerClear: s.clear,
	}
}

// Close stops every pending timer. It always returns nil.
func (s *Service) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.disarm()
	clear(s.pending)
	s.queue = nil
	return nil
}

// Pending is how many timers are pending now.
func (s *Service) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pending)
}

// set serves timer/set.
func (s *Service) set(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.TimerSetParams
	if err := decodeStrict(params, &p, "ms"); err != nil {
		return nil, err
	}
	if p.Ms < 0 || p.Ms > MaxMs {
		return nil, invalidParams("params.ms must be between 0 and %d, not %d", MaxMs, p.Ms)
	}
	id, refusal := s.add(max(time.Duration(p.Ms)*time.Millisecond, MinDelay))
	if refusal != nil {
		return nil, refusal
	}
	return proto.TimerRef{Timer: id}, nil
}

// clear serves timer/clear.
func (s *Service) clear(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.TimerRef
	if err := decodeStrict(params, &p, "timer"); err != nil {
		return nil, err
	}
	if p.Timer < 1 {
		return nil, invalidParams("params.timer must be 1 or more, not %d", p.Timer)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.pending[p.Timer]; ok {
		delete(s.pending, p.Timer)
		if e.index >= 0 { // not taken by a delivery under way
			heap.Remove(&s.queue, e.index)
			s.arm()
		}
	}
	return nil, nil
}

// add makes a pending timer due after d.
func (s *Service) add(d time.Duration) (proto.TimerID, *services.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return 0, &services.Error{Code: services.CodeFailed, Message: vocab.MessageInstanceEnded,
			Reason: "the timers of this instance are closed"}
	case len(s.pending) >= MaxPending:
		return 0, &services.Error{Code: services.CodeForbidden, Message: vocab.MessageTooManyTimers,
			Reason: fmt.Sprintf("%d timers pending: at most %d at once", len(s.pending)+1, MaxPending)}
	}
	s.lastID++
	e := &entry{id: s.lastID, due: s.now().Add(d)}
	s.pending[e.id] = e
	heap.Push(&s.queue, e)
	s.arm()
	return e.id, nil
}

// arm makes sure one wake-up is set for the earliest pending timer. It is
// called with mu held.
func (s *Service) arm() {
	if s.closed || len(s.queue) == 0 {
		s.disarm()
		return
	}
	at := s.queue[0].due
	if s.wake != nil && s.wakeAt.Equal(at) {
		return
	}
	s.disarm()
	s.wakeAt = at
	s.wake = s.afterFunc(max(at.Sub(s.now()), 0), func() { s.fire(at) })
}

// disarm stops the armed wake-up, if any. It is called with mu held.
func (s *Service) disarm() {
	if s.wake != nil {
		s.wake()
		s.wake = nil
	}
}

// fire sends timer/fired for every timer due by now, in order. A wake-up
// armed for at means at has come, even on a clock that says otherwise, so
// an injected clock that fires early can never make it spin. A wake-up
// whose stop came too late finds less or nothing to do: it is harmless.
func (s *Service) fire(at time.Time) {
	s.deliver.Lock()
	defer s.deliver.Unlock()
	due := s.takeDue(at)
	for _, e := range due {
		if s.stillPending(e) {
			s.notify(e.id)
		}
	}
}

// takeDue removes from the queue the timers due by at or by now, in
// order, and arms the wake-up for the next one. They stay pending until
// notified, so that a clear in between still stops them.
func (s *Service) takeDue(at time.Time) []*entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wakeAt.Equal(at) {
		s.wake = nil // this wake-up has come; arm sets the next
	}
	limit := s.now()
	if at.After(limit) {
		limit = at
	}
	var due []*entry
	for len(s.queue) > 0 && !s.queue[0].due.After(limit) {
		due = append(due, heap.Pop(&s.queue).(*entry))
	}
	s.arm()
	return due
}

// stillPending reports whether e was neither cleared nor closed since it
// was taken, and marks it fired.
func (s *Service) stillPending(e *entry) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.pending[e.id] != e {
		return false
	}
	delete(s.pending, e.id)
	return true
}

// notify sends timer/fired for id.
func (s *Service) notify(id proto.TimerID) {
	if err := s.peer.Notify(vocab.MethodTimerFired, proto.TimerRef{Timer: id}); err != nil {
		s.journal(TagDropped, fmt.Sprintf("%s: timer %d not sent: %v", vocab.MethodTimerFired, id, err))
	}
}

// decodeStrict reads params, which must be an object holding exactly the
// member name and no other, into v. The host checks params against the
// protocol schema before the handler runs; this keeps the service sound
// when it is called without that check.
func decodeStrict(params json.RawMessage, v any, name string) *services.Error {
	trimmed := bytes.TrimSpace(params)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return invalidParams("params must be an object with %s", name)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &members); err != nil {
		return invalidParams("params is not a valid JSON object")
	}
	if _, ok := members[name]; !ok {
		return invalidParams("params.%s is required", name)
	}
	for member := range members {
		if member != name {
			return invalidParams("params.%s is not a known field", member)
		}
	}
	if err := json.Unmarshal(trimmed, v); err != nil || bytes.Equal(bytes.TrimSpace(members[name]), []byte("null")) {
		return invalidParams("params.%s must be an integer, not %s", name, excerpt(members[name]))
	}
	return nil
}

// excerptLen bounds how much of a bad value a refusal quotes.
const excerptLen = 40

func excerpt(raw json.RawMessage) string {
	text := string(bytes.TrimSpace(raw))
	if len(text) > excerptLen {
		return text[:excerptLen] + "…"
	}
	return text
}

func invalidParams(format string, args ...any) *services.Error {
	reason := fmt.Sprintf(format, args...)
	return &services.Error{Code: services.CodeInvalidParams, Message: vocab.MessageInvalidParams + ": " + reason + ".", Reason: reason}
}
