package timer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/escouade-dev/escouade-plugin/services"
	"github.com/escouade-dev/escouade-plugin/vocab"
	"github.com/escouade-dev/escouade-plugin/vocab/proto"
)

// peer records the notifications a Service sends; err, when set, refuses
// them.
type peer struct {
	mu    sync.Mutex
	fired []proto.TimerID
	err   error
}

func (p *peer) Notify(method string, params any) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return p.err
	}
	if method != vocab.MethodTimerFired {
		panic("unexpected notification " + method)
	}
	p.fired = append(p.fired, params.(proto.TimerRef).Timer)
	return nil
}

func (p *peer) Fired() []proto.TimerID {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]proto.TimerID{}, p.fired...)
}

// call runs the handler of method with params given as JSON text.
func call(t *testing.T, s *Service, method, params string) (any, error) {
	t.Helper()
	h, ok := s.Methods()[method]
	if !ok {
		t.Fatalf("no handler for %s", method)
	}
	return h(context.Background(), json.RawMessage(params))
}

// set sets a timer of ms and returns its id.
func set(t *testing.T, s *Service, ms int) proto.TimerID {
	t.Helper()
	got, err := call(t, s, vocab.MethodTimerSet, fmt.Sprintf(`{"ms":%d}`, ms))
	if err != nil {
		t.Fatalf("timer/set %d: %v", ms, err)
	}
	return got.(proto.TimerRef).Timer
}

// clearTimer clears id and checks the answer is null.
func clearTimer(t *testing.T, s *Service, id proto.TimerID) {
	t.Helper()
	got, err := call(t, s, vocab.MethodTimerClear, fmt.Sprintf(`{"timer":%d}`, id))
	if err != nil || got != nil {
		t.Fatalf("timer/clear %d = %v, %v; want nil, nil", id, got, err)
	}
}

// after lets d pass in the bubble and waits until what it woke is done.
func after(d time.Duration) {
	time.Sleep(d)
	synctest.Wait()
}

func newService(p *peer) *Service {
	return New(Config{Peer: p})
}

func TestSetAnswersIncreasingIDs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newService(&peer{})
		defer s.Close()
		var got []proto.TimerID
		for range 3 {
			got = append(got, set(t, s, 100))
		}
		if diff := cmp.Diff([]proto.TimerID{1, 2, 3}, got); diff != "" {
			t.Errorf("ids (-want +got):\n%s", diff)
		}
		raw, _ := json.Marshal(proto.TimerRef{Timer: got[0]})
		if string(raw) != `{"timer":1}` {
			t.Errorf("timer/set result = %s, want {\"timer\":1}", raw)
		}
	})
}

func TestFiresWhenDue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &peer{}
		s := newService(p)
		defer s.Close()
		id := set(t, s, 250)
		after(249 * time.Millisecond)
		if got := p.Fired(); len(got) != 0 {
			t.Fatalf("fired %v after 249 ms of a 250 ms timer", got)
		}
		after(time.Millisecond)
		if diff := cmp.Diff([]proto.TimerID{id}, p.Fired()); diff != "" {
			t.Errorf("fired (-want +got):\n%s", diff)
		}
		if n := s.Pending(); n != 0 {
			t.Errorf("Pending() = %d after it fired, want 0", n)
		}
	})
}

func TestShortDelaysAreRaisedTo10ms(t *testing.T) {
	for _, ms := range []int{0, 1, 9, 10} {
		t.Run(fmt.Sprint(ms), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := &peer{}
				s := newService(p)
				defer s.Close()
				set(t, s, ms)
				after(9 * time.Millisecond)
				if got := p.Fired(); len(got) != 0 {
					t.Fatalf("a %d ms timer fired after 9 ms", ms)
				}
				after(time.Millisecond)
				if got := p.Fired(); len(got) != 1 {
					t.Fatalf("a %d ms timer fired %d times after 10 ms, want 1", ms, len(got))
				}
			})
		})
	}
}

func TestFiresInOrderOfDueTimeThenSetOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &peer{}
		s := newService(p)
		defer s.Close()
		late := set(t, s, 300)
		early := set(t, s, 100)
		tieA := set(t, s, 200)
		tieB := set(t, s, 200)
		raisedA := set(t, s, 0) // 10 ms
		raisedB := set(t, s, 10)
		after(50 * time.Millisecond)
		tieC := set(t, s, 150) // due at 200 ms too, set last
		after(time.Second)
		want := []proto.TimerID{raisedA, raisedB, early, tieA, tieB, tieC, late}
		if diff := cmp.Diff(want, p.Fired()); diff != "" {
			t.Errorf("fired (-want +got):\n%s", diff)
		}
	})
}

func TestClear(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &peer{}
		s := newService(p)
		defer s.Close()
		first := set(t, s, 100)
		second := set(t, s, 200)
		clearTimer(t, s, first) // the head: the wake-up moves to second
		after(150 * time.Millisecond)
		if got := p.Fired(); len(got) != 0 {
			t.Fatalf("fired %v; the cleared timer must not fire", got)
		}
		after(50 * time.Millisecond)
		if diff := cmp.Diff([]proto.TimerID{second}, p.Fired()); diff != "" {
			t.Errorf("fired (-want +got):\n%s", diff)
		}
		clearTimer(t, s, second) // already fired: null
		clearTimer(t, s, first)  // already cleared: null
		clearTimer(t, s, 99)     // never set: null
		after(time.Second)
		if diff := cmp.Diff([]proto.TimerID{second}, p.Fired()); diff != "" {
			t.Errorf("fired (-want +got):\n%s", diff)
		}
	})
}

func TestAtMost64Pending(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &peer{}
		s := newService(p)
		defer s.Close()
		var ids []proto.TimerID
		for i := range MaxPending {
			ids = append(ids, set(t, s, 1000+i))
		}
		_, err := call(t, s, vocab.MethodTimerSet, `{"ms":5}`)
		want := &services.Error{Code: services.CodeForbidden, Message: "The plugin may not hold more timers.",
			Reason: "65 timers pending: at most 64 at once"}
		if diff := cmp.Diff(want, err); diff != "" {
			t.Fatalf("the 65th timer/set (-want +got):\n%s", diff)
		}
		clearTimer(t, s, ids[0])
		freed := set(t, s, 5) // a clear frees a place
		if _, err := call(t, s, vocab.MethodTimerSet, `{"ms":5}`); err == nil {
			t.Fatal("a 65th timer was taken after one was cleared and one set")
		}
		after(10 * time.Millisecond) // freed fires: a place again
		set(t, s, 5)
		if diff := cmp.Diff([]proto.TimerID{freed}, p.Fired()); diff != "" {
			t.Errorf("fired (-want +got):\n%s", diff)
		}
	})
}

func TestCloseStopsEveryPendingTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &peer{}
		var live liveTimers
		s := New(Config{Peer: p, AfterFunc: live.afterFunc})
		for ms := range 10 {
			set(t, s, 10+ms*10)
		}
		after(15 * time.Millisecond) // the first fired
		if err := s.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		if n := live.count(); n != 0 {
			t.Errorf("%d wake-ups still armed after Close", n)
		}
		after(time.Hour)
		if diff := cmp.Diff([]proto.TimerID{1}, p.Fired()); diff != "" {
			t.Errorf("fired (-want +got):\n%s", diff)
		}
		_, err := call(t, s, vocab.MethodTimerSet, `{"ms":5}`)
		if !errors.Is(err, &services.Error{Code: services.CodeFailed}) {
			t.Errorf("timer/set after Close: %v, want -32004", err)
		}
	})
}

// liveTimers is an AfterFunc over the real (bubbled) clock that counts the
// wake-ups armed and neither fired nor stopped.
type liveTimers struct {
	mu sync.Mutex
	n  int
}

func (l *liveTimers) afterFunc(d time.Duration, f func()) func() bool {
	l.add(1)
	t := time.AfterFunc(d, func() { l.add(-1); f() })
	return func() bool {
		stopped := t.Stop()
		if stopped {
			l.add(-1)
		}
		return stopped
	}
}

func (l *liveTimers) add(n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n += n
}

func (l *liveTimers) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}

func TestOneWakeUpArmedAtATime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var live liveTimers
		s := New(Config{Peer: &peer{}, AfterFunc: live.afterFunc})
		defer s.Close()
		for ms := 500; ms > 0; ms -= 50 { // each one earlier: re-armed each time
			set(t, s, ms)
			if n := live.count(); n != 1 {
				t.Fatalf("%d wake-ups armed, want 1", n)
			}
		}
		after(time.Second)
		if n := live.count(); n != 0 {
			t.Errorf("%d wake-ups armed with nothing pending, want 0", n)
		}
	})
}

func TestAClockThatFiresEarlyStillFiresInOrder(t *testing.T) {
	// A fake AfterFunc that runs f at once, on a clock that never moves:
	// the service takes the wake-up's time as come and does not spin.
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var queued []func()
	p := &peer{}
	s := New(Config{
		Peer: p,
		Now:  func() time.Time { return start },
		AfterFunc: func(_ time.Duration, f func()) func() bool {
			queued = append(queued, f)
			return func() bool { return false }
		},
	})
	defer s.Close()
	b := set(t, s, 20)
	a := set(t, s, 10)
	for len(queued) > 0 {
		f := queued[0]
		queued = queued[1:]
		f()
	}
	if diff := cmp.Diff([]proto.TimerID{a, b}, p.Fired()); diff != "" {
		t.Errorf("fired (-want +got):\n%s", diff)
	}
}

func TestANotificationNotSentIsJournaled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var lines []string
		p := &peer{err: errors.New("the instance has ended")}
		s := New(Config{Peer: p, Journal: func(tag, text string) {
			mu.Lock()
			defer mu.Unlock()
			lines = append(lines, tag+" "+text)
		}})
		defer s.Close()
		set(t, s, 10)
		after(10 * time.Millisecond)
		mu.Lock()
		defer mu.Unlock()
		want := []string{"dropped timer/fired: timer 1 not sent: the instance has ended"}
		if diff := cmp.Diff(want, lines); diff != "" {
			t.Errorf("journal (-want +got):\n%s", diff)
		}
	})
}

func TestParamsThatDoNotHold(t *testing.T) {
	tests := []struct {
		method, params, reason string
	}{
		{vocab.MethodTimerSet, `{}`, "params.ms is required"},
		{vocab.MethodTimerSet, ``, "params must be an object with ms"},
		{vocab.MethodTimerSet, `[10]`, "params must be an object with ms"},
		{vocab.MethodTimerSet, `{"ms":-1}`, "params.ms must be between 0 and 2147483647, not -1"},
		{vocab.MethodTimerSet, `{"ms":2147483648}`, "params.ms must be between 0 and 2147483647, not 2147483648"},
		{vocab.MethodTimerSet, `{"ms":1.5}`, "params.ms must be an integer, not 1.5"},
		{vocab.MethodTimerSet, `{"ms":"10"}`, `params.ms must be an integer, not "10"`},
		{vocab.MethodTimerSet, `{"ms":null}`, "params.ms must be an integer, not null"},
		{vocab.MethodTimerSet, `{"ms":10,"repeat":true}`, "params.repeat is not a known field"},
		{vocab.MethodTimerSet, `{"ms":10`, "params is not a valid JSON object"},
		{vocab.MethodTimerClear, `{}`, "params.timer is required"},
		{vocab.MethodTimerClear, `{"timer":0}`, "params.timer must be 1 or more, not 0"},
		{vocab.MethodTimerClear, `{"timer":"1"}`, `params.timer must be an integer, not "1"`},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.params, func(t *testing.T) {
			s := newService(&peer{})
			defer s.Close()
			_, err := call(t, s, tt.method, tt.params)
			want := &services.Error{Code: services.CodeInvalidParams, Message: "Invalid params: " + tt.reason + ".", Reason: tt.reason}
			if diff := cmp.Diff(want, err); diff != "" {
				t.Errorf("refusal (-want +got):\n%s", diff)
			}
			if n := s.Pending(); n != 0 {
				t.Errorf("Pending() = %d after a refusal", n)
			}
		})
	}
}

func TestConcurrentSetsAndClears(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &peer{}
		s := newService(p)
		defer s.Close()
		setH, clearH := s.Methods()[vocab.MethodTimerSet], s.Methods()[vocab.MethodTimerClear]
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				for i := range 8 {
					got, err := setH(context.Background(), json.RawMessage(fmt.Sprintf(`{"ms":%d}`, 10+g+i)))
					if err != nil {
						t.Errorf("timer/set: %v", err)
						return
					}
					if i%2 == 1 {
						ref, _ := json.Marshal(got)
						if _, err := clearH(context.Background(), ref); err != nil {
							t.Errorf("timer/clear: %v", err)
						}
					}
				}
			})
		}
		wg.Wait()
		after(time.Second)
		if got := len(p.Fired()); got != 32 {
			t.Errorf("%d timers fired, want 32 (half of 64 were cleared)", got)
		}
	})
}

// clearingPeer clears a timer from inside the first notification, while
// the batch that timer belongs to is being delivered.
type clearingPeer struct {
	peer
	once  sync.Once
	clear func()
}

func (c *clearingPeer) Notify(method string, params any) error {
	c.once.Do(c.clear)
	return c.peer.Notify(method, params)
}

func TestAClearDuringADeliveryStopsTheRestOfItsBatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &clearingPeer{}
		s := New(Config{Peer: p})
		defer s.Close()
		const second = 2 // ids count from 1
		p.clear = func() { clearTimer(t, s, second) }
		first := set(t, s, 10)
		if id := set(t, s, 10); id != second { // due with first: taken in the same batch
			t.Fatalf("second timer id %d, want %d", id, second)
		}
		after(10 * time.Millisecond)
		if diff := cmp.Diff([]proto.TimerID{first}, p.Fired()); diff != "" {
			t.Errorf("fired (-want +got):\n%s", diff)
		}
		if n := s.Pending(); n != 0 {
			t.Errorf("Pending() = %d, want 0", n)
		}
	})
}
