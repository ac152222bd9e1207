package process

import (
	"testing"
	"time"
)

// fakeClock makes the graces of Stop (Spec.timer): each timer asked for is
// told to the test, which fires it when it has seen what it waits for.
type fakeClock struct {
	asked chan fakeTimer
}

type fakeTimer struct {
	d    time.Duration
	fire chan time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{asked: make(chan fakeTimer, 16)} }

func (c *fakeClock) newTimer(d time.Duration) (<-chan time.Time, func() bool) {
	tm := fakeTimer{d: d, fire: make(chan time.Time, 1)}
	c.asked <- tm
	return tm.fire, func() bool { return true }
}

// next returns the next timer Stop asks for.
func (c *fakeClock) next(t *testing.T) fakeTimer {
	t.Helper()
	select {
	case tm := <-c.asked:
		return tm
	case <-time.After(testDeadline):
		t.Fatalf("no grace asked for within %v", testDeadline)
		return fakeTimer{}
	}
}

// none fails when a timer was asked for and not taken by next.
func (c *fakeClock) none(t *testing.T) {
	t.Helper()
	select {
	case tm := <-c.asked:
		t.Errorf("a grace of %v was asked for, want none", tm.d)
	default:
	}
}
