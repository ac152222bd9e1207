package kit

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
)

// timerHost is a fake host that keeps timers as a module's host does: it
// answers timer/set with increasing ids and records every timer call. The
// test fires a timer with fire.
type timerHost struct {
	*fakeHost
	mu     sync.Mutex
	lastID int
	calls  []string
	// beforeAnswer, when set, runs before timer/set is answered, with the
	// id about to be answered.
	beforeAnswer func(id int)
	refuse       error         // when set, timer/set answers it
	probed       chan struct{} // the plugin's event/probe handler ran
}

// startTimerPlugin serves a plugin that asks the host for timers.
func startTimerPlugin(t *testing.T, th *timerHost) (*Plugin, *syncBuffer) {
	t.Helper()
	p, stderr := quietPlugin()
	p.timers.hostKeeps = true // as in a module
	th.probed = make(chan struct{}, 1)
	p.OnEvent("probe", func(context.Context, json.RawMessage) { th.probed <- struct{}{} })
	th.fakeHost = startPlugin(t, p, th.answer)
	th.mustCall(t, "initialize", json.RawMessage(initializeParams))
	return p, stderr
}

func (th *timerHost) answer(m *jsonrpc.Message) (any, error) {
	th.mu.Lock()
	th.calls = append(th.calls, m.Method+" "+string(m.Params))
	refuse, before := th.refuse, th.beforeAnswer
	th.mu.Unlock()
	switch m.Method {
	case methodTimerSet:
		if refuse != nil {
			return nil, refuse
		}
		th.mu.Lock()
		th.lastID++
		id := th.lastID
		th.mu.Unlock()
		if before != nil {
			before(id)
		}
		return map[string]int{"timer": id}, nil
	case methodTimerClear:
		return nil, nil
	}
	return nil, jsonrpc.ErrMethodNotFound
}

// fire sends timer/fired for id.
func (th *timerHost) fire(t *testing.T, id int) {
	t.Helper()
	if err := th.conn.Notify(methodTimerFired, map[string]int{"timer": id}); err != nil {
		t.Fatal(err)
	}
}

func (th *timerHost) Calls() []string {
	th.mu.Lock()
	defer th.mu.Unlock()
	return append([]string(nil), th.calls...)
}

// fired reports whether c is closed, waiting for it at most wait.
func fired(c <-chan struct{}, wait time.Duration) bool {
	if wait == 0 {
		select {
		case <-c:
			return true
		default:
			return false
		}
	}
	select {
	case <-c:
		return true
	case <-time.After(wait):
		return false
	}
}

// sync waits until the plugin has served the notifications sent before:
// they are served one at a time, in order, so when event/probe has run,
// every timer/fired before it has.
func (th *timerHost) sync(t *testing.T) {
	t.Helper()
	if err := th.conn.Notify("event/probe", nil); err != nil {
		t.Fatal(err)
	}
	if !fired(th.probed, testTimeout) {
		t.Fatal("event/probe was not served")
	}
}

func TestAfterAsksTheHostAndFiresOnTimerFired(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		th := &timerHost{}
		p, _ := startTimerPlugin(t, th)
		ctx := context.Background()

		first, err := p.After(ctx, 1500*time.Microsecond) // rounded up to 2 ms
		if err != nil {
			t.Fatal(err)
		}
		second, err := p.After(ctx, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		th.fire(t, 1)
		if !fired(first.C(), testTimeout) {
			t.Fatal("the first timer did not fire on timer/fired")
		}
		th.sync(t)
		if fired(second.C(), 0) {
			t.Error("the second timer fired with the first")
		}
		if first.Stop() {
			t.Error("Stop of a fired timer reported true")
		}
		if !second.Stop() {
			t.Error("Stop of a pending timer reported false")
		}
		th.fire(t, 2) // crosses the clear: ignored
		th.sync(t)
		if fired(second.C(), 0) {
			t.Error("a stopped timer fired")
		}
		clearOfSecond := `timer/clear {"timer":2}`
		settled(t, "the clear of the second timer sent", func() bool { return strings.Contains(strings.Join(th.Calls(), "\n"), clearOfSecond) })
		want := []string{`timer/set {"ms":2}`, `timer/set {"ms":3600000}`, clearOfSecond}
		if diff := cmp.Diff(want, th.Calls()); diff != "" {
			t.Errorf("calls to the host (-want +got):\n%s", diff)
		}
	})
}

// settled waits, inside a synctest bubble, until every goroutine of the
// plugin and the fake host is blocked, then fails unless cond holds.
func settled(t *testing.T, what string, cond func() bool) {
	t.Helper()
	synctest.Wait()
	if !cond() {
		t.Fatalf("once everything settled: not %s", what)
	}
}

func TestATimerFiredBeforeItsSetAnswerStillFires(t *testing.T) {
	th := &timerHost{}
	th.beforeAnswer = func(id int) { th.fire(t, id) } // written before the answer
	p, _ := startTimerPlugin(t, th)
	timer, err := p.After(context.Background(), 10*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if !fired(timer.C(), testTimeout) {
		t.Fatal("a timer whose timer/fired came first never fired")
	}
}

func TestAfterFuncCallsItsFunction(t *testing.T) {
	th := &timerHost{}
	p, _ := startTimerPlugin(t, th)
	called := make(chan struct{})
	timer, err := p.AfterFunc(context.Background(), time.Second, func() { close(called) })
	if err != nil {
		t.Fatal(err)
	}
	th.fire(t, 1)
	if !fired(called, testTimeout) {
		t.Fatal("AfterFunc's function was not called")
	}
	if !fired(timer.C(), 0) {
		t.Error("AfterFunc's C is not closed once it fired")
	}
}

func TestSleepStopsItsTimerWhenCtxEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		th := &timerHost{}
		p, _ := startTimerPlugin(t, th)
		ctx, cancel := context.WithCancel(context.Background())
		slept := make(chan error, 1)
		go func() { slept <- p.Sleep(ctx, time.Hour) }()
		settled(t, "one host timer set and answered", func() bool { return p.hostTimerCount() == 1 })
		cancel()
		if err := <-slept; !errors.Is(err, context.Canceled) {
			t.Fatalf("Sleep = %v, want context.Canceled", err)
		}
		settled(t, "the host timer cleared and answered", func() bool { return p.hostTimerCount() == 0 })
		want := []string{`timer/set {"ms":3600000}`, `timer/clear {"timer":1}`}
		if diff := cmp.Diff(want, th.Calls()); diff != "" {
			t.Errorf("calls to the host (-want +got):\n%s", diff)
		}
	})
}

// hostTimerCount is how many host timers the plugin holds.
func (p *Plugin) hostTimerCount() int {
	p.timers.mu.Lock()
	defer p.timers.mu.Unlock()
	return len(p.timers.byID)
}

func TestAfterReportsTheHostsRefusal(t *testing.T) {
	th := &timerHost{refuse: jsonrpc.ErrForbidden.WithReason("65 timers pending: at most 64 at once")}
	p, _ := startTimerPlugin(t, th)
	_, err := p.After(context.Background(), time.Second)
	if !errors.Is(err, jsonrpc.ErrForbidden) {
		t.Fatalf("After = %v, want -32003", err)
	}
}

func TestAfterFallsBackToGoTimersWhenTheHostKeepsNone(t *testing.T) {
	th := &timerHost{refuse: jsonrpc.ErrMethodNotFound}
	p, stderr := startTimerPlugin(t, th)
	for range 2 {
		timer, err := p.After(context.Background(), time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		if !fired(timer.C(), testTimeout) {
			t.Fatal("the Go timer standing in did not fire")
		}
	}
	if diff := cmp.Diff([]string{`timer/set {"ms":1}`}, th.Calls()); diff != "" {
		t.Errorf("calls to the host (-want +got): asked once, then Go timers\n%s", diff)
	}
	want := "kit: the host keeps no timers (timer/set: no such method): Go timers stand in, which a module only sees during its turns\n"
	if diff := cmp.Diff(want, stderr.String()); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
}

func TestAfterInAProcessUsesGoTimers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, _ := quietPlugin() // not serving: a process's timers need no host
		timer, err := p.After(context.Background(), 50*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(49 * time.Millisecond)
		synctest.Wait()
		if fired(timer.C(), 0) {
			t.Fatal("fired after 49 ms of 50")
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if !fired(timer.C(), 0) {
			t.Fatal("not fired after 50 ms")
		}

		var calls int
		var mu sync.Mutex
		stopped, err := p.AfterFunc(context.Background(), time.Second, func() { mu.Lock(); calls++; mu.Unlock() })
		if err != nil {
			t.Fatal(err)
		}
		if !stopped.Stop() || stopped.Stop() {
			t.Error("Stop reported false on a pending timer, or true twice")
		}
		if err := p.Sleep(context.Background(), 2*time.Second); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if calls != 0 {
			t.Errorf("a stopped AfterFunc was called %d times", calls)
		}
	})
}

func TestTimerMs(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want int64
	}{
		{-time.Second, 0}, {0, 0}, {time.Nanosecond, 1}, {time.Millisecond, 1},
		{1500 * time.Microsecond, 2}, {time.Minute, 60000}, {MaxTimerDelay, 1<<31 - 1},
	}
	for _, tt := range tests {
		got, err := timerMs(tt.d)
		if err != nil || got != tt.want {
			t.Errorf("timerMs(%v) = %d, %v; want %d", tt.d, got, err, tt.want)
		}
	}
	if _, err := timerMs(MaxTimerDelay + time.Millisecond); err == nil {
		t.Error("timerMs past MaxTimerDelay: no error")
	}
}

func TestABadTimerFiredIsTraced(t *testing.T) {
	th := &timerHost{}
	_, stderr := startTimerPlugin(t, th)
	if err := th.conn.Notify(methodTimerFired, map[string]string{"timer": "x"}); err != nil {
		t.Fatal(err)
	}
	th.sync(t)
	want := "kit: timer/fired from the host: {\"timer\":\"x\"} is not {\"timer\": <id>}\n"
	if diff := cmp.Diff(want, stderr.String()); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
}

func TestHandleRefusesTimerFired(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Handle(timer/fired) did not panic")
		}
	}()
	p, _ := quietPlugin()
	p.Handle(methodTimerFired, func(context.Context, json.RawMessage) (any, error) { return nil, nil })
}
