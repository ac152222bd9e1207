package jsonrpc

import (
	"fmt"
	"os"
	"sync/atomic"
	"time"
)

// writeWatch bounds how long one line waits for the peer to take it,
// whatever the writer is: a pipe on Windows takes no deadline, so a timer
// watches the write under way instead. A write the peer has not taken
// within the timeout (or at most half as long again: the timer looks
// every half timeout, and runs only while lines are written) fails the
// connection, and the writer is closed, which ends the blocked write on
// every system (closing a pipe cancels its pending write on Windows too).
type writeWatch struct {
	timeout time.Duration
	stuck   func(error) // ends the connection with the error
	timer   *time.Timer
	// started is when the write under way started (UnixNano), 0 between
	// writes; armed says the timer runs; err is set once it fired.
	started atomic.Int64
	armed   atomic.Bool
	err     atomic.Pointer[error]
}

func newWriteWatch(timeout time.Duration, stuck func(error)) *writeWatch {
	w := &writeWatch{timeout: timeout, stuck: stuck}
	w.timer = time.AfterFunc(time.Hour, w.check)
	w.timer.Stop()
	return w
}

// begin marks a write started, and starts the timer if it sleeps.
func (w *writeWatch) begin() {
	w.started.Store(time.Now().UnixNano())
	if w.armed.CompareAndSwap(false, true) {
		w.timer.Reset(w.timeout / 2)
	}
}

// end marks the write done.
func (w *writeWatch) end() { w.started.Store(0) }

// check runs every half timeout while lines are written: it fails a write
// older than the timeout, and lets the timer sleep once writing stops.
func (w *writeWatch) check() {
	started := w.started.Load()
	switch {
	case started != 0 && time.Since(time.Unix(0, started)) >= w.timeout:
		err := fmt.Errorf("the peer took no line for %s: %w", w.timeout, os.ErrDeadlineExceeded)
		w.err.Store(&err)
		w.stuck(err)
	case started != 0:
		w.timer.Reset(w.timeout / 2)
	default:
		w.armed.Store(false)
		// A write that began between the load and the store found the
		// timer running: it is started again for it.
		if w.started.Load() != 0 && w.armed.CompareAndSwap(false, true) {
			w.timer.Reset(w.timeout / 2)
		}
	}
}

// failure is the watch's error when it ended the write, else nil.
func (w *writeWatch) failure() error {
	if err := w.err.Load(); err != nil {
		return *err
	}
	return nil
}
