package wasm

import (
	"sync"
	"time"
)

// clock times an instance's turns: resume starts a turn with the limit of
// now (2 s, or 500 ms while the instance holds a decision), pause ends it.
// A turn starts with a call into the module, a wake from a wait for the
// host, and each read of new input.
// A turn that runs past its limit calls expired once, on the timer's
// goroutine.
type clock struct {
	limitFor func() time.Duration
	expired  func(limit time.Duration)

	mu      sync.Mutex
	stopped *sync.Cond // on mu: broadcast when a turn ends (waitPaused)
	timer   *time.Timer
	running bool
	start   time.Time
	limit   time.Duration
}

func newClock(limitFor func() time.Duration, expired func(time.Duration)) *clock {
	c := &clock{limitFor: limitFor, expired: expired}
	c.stopped = sync.NewCond(&c.mu)
	c.timer = time.AfterFunc(time.Hour, c.fire)
	c.timer.Stop()
	return c
}

// resume starts a turn (turnClock).
func (c *clock) resume() { c.begin() }

// begin starts a turn and returns its limit.
func (c *clock) begin() time.Duration { return c.beginWith(c.limitFor()) }

// beginWith starts a turn of the given limit: an instance's start has a
// limit of its own (startLimit).
func (c *clock) beginWith(limit time.Duration) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.running, c.start, c.limit = true, time.Now(), limit
	c.timer.Reset(limit)
	return limit
}

// lastLimit is the limit of the turn running or last run: what an engine
// that stopped its own turn at its budget ran past.
func (c *clock) lastLimit() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.limit
}

func (c *clock) pause() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.running = false
	c.timer.Stop()
	c.stopped.Broadcast()
}

// waitPaused waits until no turn runs: a reactor between turns, a command
// blocked reading stdin (tests use it to know the instance waits).
func (c *clock) waitPaused() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.running {
		c.stopped.Wait()
	}
}

// fire runs when the timer goes off; a fire left from a turn that ended
// (the timer was stopped or reset as it went off) does nothing.
func (c *clock) fire() {
	c.mu.Lock()
	if !c.running || time.Since(c.start) < c.limit {
		c.mu.Unlock()
		return
	}
	c.running = false
	limit := c.limit
	c.stopped.Broadcast()
	c.mu.Unlock()
	c.expired(limit)
}
