package kit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/vocab"
	"github.com/escouade-dev/escouade-plugin/vocab/proto"
)

// The timer methods of the host (docs/protocol.md#timer), for modules only.
const (
	methodTimerSet   = vocab.MethodTimerSet
	methodTimerClear = vocab.MethodTimerClear
	methodTimerFired = vocab.MethodTimerFired
)

// MaxTimerDelay is the longest delay a host keeps a timer for: 2^31-1 ms,
// as setTimeout in JS (about 24.8 days).
const MaxTimerDelay = math.MaxInt32 * time.Millisecond

// maxEarlyFired bounds how many timer/fired the kit keeps for timers whose
// timer/set answer has not come yet: the host holds 64 timers at most.
const maxEarlyFired = 64

// Timer is a one-shot timer started by After or AfterFunc. In a module the
// host keeps it (timer/set) and wakes the module with timer/fired when it
// is due, since a module's own clock only runs during its turns; in a
// process, which has its own clock, it is a Go timer.
//
// A host timer still pending when Serve ends never fires.
type Timer struct {
	c      chan struct{}
	f      func() // AfterFunc's function, or nil
	owner  *Plugin
	hostID proto.TimerID // the host's id; 0 for a Go timer
	goStop func() bool   // stops the Go timer; nil for a host timer

	mu    sync.Mutex
	state timerState
}

type timerState int

const (
	timerPending timerState = iota
	timerFired
	timerStopped
)

// C is closed when the timer fires; it is never closed if Stop stopped it
// first.
func (t *Timer) C() <-chan struct{} { return t.c }

// Stop stops the timer. It reports whether it stopped it, false when the
// timer had already fired or been stopped. It does not wait: the host's
// timer/clear goes out in the background, and a timer/fired that crosses
// it on the way is ignored.
func (t *Timer) Stop() bool {
	if !t.settle(timerStopped) {
		return false
	}
	if t.goStop != nil {
		t.goStop()
		return true
	}
	go t.owner.clearOnHost(t)
	return true
}

// settle moves a pending timer to state, and reports whether it was
// pending.
func (t *Timer) settle(state timerState) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.state != timerPending {
		return false
	}
	t.state = state
	return true
}

// fire closes C and starts AfterFunc's function, unless the timer fired
// or was stopped before. spawn says whether f needs a goroutine of its own
// (a Go timer already calls fire on one).
func (t *Timer) fire(spawn bool) {
	if !t.settle(timerFired) {
		return
	}
	close(t.c)
	switch {
	case t.f == nil:
	case spawn:
		go t.f()
	default:
		t.f()
	}
}

// timers is what a plugin knows of the timers it started on the host.
type timers struct {
	mu sync.Mutex
	// hostKeeps says the host keeps the plugin's timers: true in a
	// module, false in a process (the host would answer -32601).
	hostKeeps bool
	// refused is set when this connection's host answered timer/set with
	// -32601: Go timers stand in from then on.
	refused bool
	byID    map[proto.TimerID]*Timer // host timers neither fired nor cleared
	early   []proto.TimerID          // fired before their timer/set answer came
}

// pending counts the host timers neither fired nor cleared.
func (ts *timers) pending() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return len(ts.byID)
}

// After starts a timer of d; its C is closed once d has passed. ctx bounds
// the wait for the host's answer to timer/set. A delay under 10 ms waits
// 10 ms in a module (the host's shortest); a delay over MaxTimerDelay
// fails there. The host holds 64 timers of a module at once: the 65th
// fails with an error matching jsonrpc.ErrForbidden (-32003).
//
// A module must wait with After, AfterFunc or Sleep rather than with
// time.Sleep, time.After or a context deadline: the Go runtime of a module
// runs only during its turns, so a Go timer fires at the first turn after
// it is due, and no turn may come. Where the host keeps no timers (it
// answers timer/set with -32601, as for a process), After uses Go timers.
// In a module, After needs the host: before Run serves, or after it
// returned, it fails with ErrNotConnected.
func (p *Plugin) After(ctx context.Context, d time.Duration) (*Timer, error) {
	return p.startTimer(ctx, d, nil)
}

// AfterFunc is After calling f in its own goroutine when the timer fires.
// It panics on a nil f.
func (p *Plugin) AfterFunc(ctx context.Context, d time.Duration, f func()) (*Timer, error) {
	if f == nil {
		panic("kit: AfterFunc needs a function")
	}
	return p.startTimer(ctx, d, f)
}

// Sleep waits d with a timer of After, or until ctx ends, in which case it
// stops the timer and returns ctx's error.
func (p *Plugin) Sleep(ctx context.Context, d time.Duration) error {
	t, err := p.After(ctx, d)
	if err != nil {
		return err
	}
	select {
	case <-t.C():
		return nil
	case <-ctx.Done():
		t.Stop()
		return ctx.Err()
	}
}

// ErrTimeout matches, with errors.Is, the error of Timeout when its timer
// fired before its function returned.
var ErrTimeout = errors.New("kit: timed out")

// Timeout runs f for at most d, timed as After times (a host timer in a
// module): f's own error when it returns first, the timer then stopped.
// When the timer fires first, f's context is canceled and Timeout returns
// at once, without waiting for f, an error matching ErrTimeout: -32603
// "no answer within <ms> ms" with data {"reason": "timed out after <ms>
// ms", "timeoutMs": <ms>}, what the Rust kit's timeout gives, so that a
// handler may return it as its answer. f must heed its context; what it
// returns after the timeout is dropped. Timeout fails as After does when
// the timer cannot be set.
func (p *Plugin) Timeout(ctx context.Context, d time.Duration, f func(ctx context.Context) error) error {
	if f == nil {
		panic("kit: Timeout needs a function")
	}
	timer, err := p.After(ctx, d)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1) // f's send never blocks, even once nobody waits
	go func() { done <- f(ctx) }()
	select {
	case err := <-done:
		timer.Stop()
		return err
	case <-timer.C():
		ms, _ := timerMs(d) // d was accepted by After
		return timedOut(ms)
	}
}

// timeoutError is Timeout's error: ErrTimeout for errors.Is, and the wire
// error a handler's answer carries.
type timeoutError struct{ wire *jsonrpc.Error }

func (e *timeoutError) Error() string        { return e.wire.Message }
func (e *timeoutError) Is(target error) bool { return target == ErrTimeout }
func (e *timeoutError) Unwrap() error        { return e.wire }

func timedOut(ms int64) error {
	data, _ := json.Marshal(struct {
		Reason    string `json:"reason"`
		TimeoutMs int64  `json:"timeoutMs"`
	}{fmt.Sprintf("timed out after %d ms", ms), ms}) // a string and an int always marshal
	return &timeoutError{wire: &jsonrpc.Error{Code: jsonrpc.ErrInternal.Code, Message: fmt.Sprintf("no answer within %d ms", ms), Data: data}}
}

// startTimer starts a host timer where the host keeps them, else a Go
// timer.
func (p *Plugin) startTimer(ctx context.Context, d time.Duration, f func()) (*Timer, error) {
	t := &Timer{c: make(chan struct{}), f: f, owner: p}
	if p.asksHostForTimers() {
		err := p.setOnHost(ctx, t, d)
		if !errors.Is(err, jsonrpc.ErrMethodNotFound) {
			if err != nil {
				return nil, err
			}
			return t, nil
		}
		p.hostKeepsNoTimers()
	}
	t.goStop = time.AfterFunc(max(d, 0), func() { t.fire(false) }).Stop
	return t, nil
}

// asksHostForTimers reports whether timers go to the host.
func (p *Plugin) asksHostForTimers() bool {
	p.timers.mu.Lock()
	defer p.timers.mu.Unlock()
	return p.timers.hostKeeps && !p.timers.refused
}

// hostKeepsNoTimers records that the host answered timer/set with -32601.
func (p *Plugin) hostKeepsNoTimers() {
	p.timers.mu.Lock()
	first := !p.timers.refused
	p.timers.refused = true
	p.timers.mu.Unlock()
	if first {
		p.tracef("the host keeps no timers (%s: no such method): Go timers stand in, which a module only sees during its turns", methodTimerSet)
	}
}

// setOnHost asks the host for a timer of d and registers t under the id
// it answers.
func (p *Plugin) setOnHost(ctx context.Context, t *Timer, d time.Duration) error {
	ms, err := timerMs(d)
	if err != nil {
		return err
	}
	raw, err := p.call(ctx, methodTimerSet, proto.TimerSetParams{Ms: ms})
	if err != nil {
		return err
	}
	var ref proto.TimerRef
	if err := json.Unmarshal(raw, &ref); err != nil || ref.Timer < 1 {
		return badAnswer(methodTimerSet, `{"timer": <id>}`, raw)
	}
	t.hostID = ref.Timer
	if p.registerHostTimer(t) {
		t.fire(true) // its timer/fired came before this answer
	}
	return nil
}

// timerMs is d in whole milliseconds, rounded up so a timer never fires
// early.
func timerMs(d time.Duration) (int64, error) {
	if d > MaxTimerDelay {
		return 0, fmt.Errorf("kit: a timer of %v is longer than the %v a host keeps", d, MaxTimerDelay)
	}
	if d <= 0 {
		return 0, nil
	}
	return int64((d + time.Millisecond - 1) / time.Millisecond), nil
}

// registerHostTimer files t under its host id. It reports whether the
// host's timer/fired for that id already came, in which case t is due.
func (p *Plugin) registerHostTimer(t *Timer) (due bool) {
	p.timers.mu.Lock()
	defer p.timers.mu.Unlock()
	if i := slices.Index(p.timers.early, t.hostID); i >= 0 {
		p.timers.early = slices.Delete(p.timers.early, i, i+1)
		return true
	}
	if p.timers.byID == nil {
		p.timers.byID = make(map[proto.TimerID]*Timer)
	}
	p.timers.byID[t.hostID] = t
	return false
}

// timerFired serves the host's timer/fired notification.
func (p *Plugin) timerFired(params json.RawMessage) {
	var ref proto.TimerRef
	if err := json.Unmarshal(params, &ref); err != nil || ref.Timer < 1 {
		p.tracef("%s from the host: %s is not {\"timer\": <id>}", methodTimerFired, params)
		return
	}
	if t := p.takeHostTimer(ref.Timer); t != nil {
		t.fire(true) // f must not hold up the notifications after this one
	}
}

// takeHostTimer removes the timer filed under id and returns it. An id it
// does not know is kept for a timer/set whose answer is still on its way;
// a stopped timer stays filed until its clear is answered, so a fired
// crossing the clear finds it and is ignored.
func (p *Plugin) takeHostTimer(id proto.TimerID) *Timer {
	p.timers.mu.Lock()
	defer p.timers.mu.Unlock()
	t, ok := p.timers.byID[id]
	if ok {
		delete(p.timers.byID, id)
		return t
	}
	if len(p.timers.early) == maxEarlyFired {
		p.timers.early = p.timers.early[1:]
	}
	p.timers.early = append(p.timers.early, id)
	return nil
}

// clearOnHost sends timer/clear for a stopped host timer, then forgets it.
func (p *Plugin) clearOnHost(t *Timer) {
	_, err := p.call(context.Background(), methodTimerClear, proto.TimerRef{Timer: t.hostID})
	if err != nil && !errors.Is(err, ErrNotConnected) && !errors.Is(err, jsonrpc.ErrClosed) {
		p.tracef("%s %d: %v", methodTimerClear, t.hostID, err)
	}
	p.timers.mu.Lock()
	defer p.timers.mu.Unlock()
	if p.timers.byID[t.hostID] == t {
		delete(p.timers.byID, t.hostID)
	}
}

// forgetHost drops what the kit knows of the host's timers when the
// connection ends: the next host numbers its timers anew.
func (t *timers) forgetHost() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.byID = nil
	t.early = nil
	t.refused = false
}
