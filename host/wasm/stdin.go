package wasm

import (
	"bytes"
	"io"
	"os"
	"sync"
	"time"

	"github.com/escouade-dev/escouade-plugin/host/wasm/engine"
)

// turnClock is told when an instance waits for the host and when it runs
// again: a wait ends a turn (docs/protocol.md#turns).
type turnClock interface {
	pause()
	resume()
}

// stdin is an instance's fd 0: the host writes whole lines (Program.Stdin),
// the guest reads them (wazero calls Read and Poll on the instance's
// goroutine). A reactor's reads never block; a command's block on an empty
// buffer unless it made fd 0 non-blocking, and a blocked read stops the
// turn clock.
type stdin struct {
	mu       sync.Mutex
	cond     *sync.Cond
	buf      []byte // whole lines; buf[off:] not read yet
	off      int
	partial  []byte // written after the last newline: not the guest's yet
	arrived  bool   // lines came since the reactor's last turn began
	idle     bool   // the reactor waits in next for a reason to run a turn
	closed   bool   // the host closed it: reads end once buf is drained
	aborted  bool   // the instance is ending: reads end at once
	nonblock bool   // the guest made fd 0 non-blocking
	reactor  bool   // reads and polls never wait, whatever the flag says
	max      int    // unread bytes past which a write waits; Close ends the wait
	clock    turnClock
}

func newStdin(reactor bool, max int, clock turnClock) *stdin {
	s := &stdin{reactor: reactor, max: max, clock: clock}
	s.cond = sync.NewCond(&s.mu)
	return s
}

// Write takes bytes of lines; a line reaches the guest once its newline
// has come. It waits while the guest has more than max bytes unread.
func (s *stdin) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.waitRoom(); err != nil {
		return 0, err
	}
	s.partial = append(s.partial, p...)
	if i := bytes.LastIndexByte(s.partial, '\n'); i >= 0 {
		s.buf = append(s.buf, s.partial[:i+1]...)
		s.partial = append(s.partial[:0], s.partial[i+1:]...)
		s.arrived = true
		s.cond.Broadcast()
	}
	return len(p), nil
}

func (s *stdin) waitRoom() error {
	for len(s.buf)-s.off >= s.max && !s.closed && !s.aborted {
		s.cond.Wait()
	}
	if s.closed || s.aborted {
		return os.ErrClosed
	}
	return nil
}

// Close ends the input: the guest reads what is left, then EOF; a reactor
// gets a last turn.
func (s *stdin) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.arrived = true
	s.cond.Broadcast()
	return nil
}

// abort ends reads and waits at once: the instance is ending.
func (s *stdin) abort() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.aborted = true
	s.cond.Broadcast()
}

// Read is fd_read on fd 0. An empty buffer reads as EAGAIN when fd 0 is
// non-blocking, and as EOF once the host closed it; otherwise it waits,
// the turn clock stopped. Bytes read start a new turn: the time from now
// on is spent on behalf of new input, so a module that keeps up with a
// stream of lines is not taken for a runaway because it never had to wait.
func (s *stdin) Read(p []byte) (int, error) {
	n, err := s.read(p)
	if n > 0 {
		s.clock.resume()
	}
	return n, err
}

func (s *stdin) read(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if s.off < len(s.buf) {
			return s.take(p), nil
		}
		if s.closed || s.aborted {
			return 0, io.EOF
		}
		if s.reactor || s.nonblock {
			return 0, engine.EAGAIN
		}
		s.waitInput(nil)
	}
}

func (s *stdin) take(p []byte) int {
	n := copy(p, s.buf[s.off:])
	s.off += n
	if s.off == len(s.buf) {
		s.buf, s.off = s.buf[:0], 0
	}
	s.cond.Broadcast() // room for a waiting writer
	return n
}

// ready reports whether a read would not wait. Called with s.mu held.
func (s *stdin) ready() bool {
	return s.off < len(s.buf) || s.closed || s.aborted
}

// waitInput waits, the turn clock stopped, until a read would not wait or
// *expired is set. Called with s.mu held; the clock is told without it,
// since starting a turn asks the host whether the instance holds a
// decision, and the host may be writing to stdin meanwhile.
func (s *stdin) waitInput(expired *bool) {
	s.mu.Unlock()
	s.clock.pause()
	s.mu.Lock()
	for !s.ready() && (expired == nil || !*expired) {
		s.cond.Wait()
	}
	s.mu.Unlock()
	s.clock.resume()
	s.mu.Lock()
}

// Poll is poll_oneoff's fd_read subscription on fd 0 (wazero calls it for
// a reader that implements experimental/sys.Pollable). A command's poll
// waits up to timeoutMillis (negative: no limit), its turn clock stopped;
// a reactor's never waits.
func (s *stdin) Poll(flag engine.Pflag, timeoutMillis int32) (bool, engine.Errno) {
	if flag != engine.POLLIN {
		return false, engine.ENOTSUP
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ready() || s.reactor || timeoutMillis == 0 {
		return s.ready(), 0
	}
	expired := false
	if timeoutMillis > 0 {
		t := time.AfterFunc(time.Duration(timeoutMillis)*time.Millisecond, func() {
			s.mu.Lock()
			expired = true
			s.cond.Broadcast()
			s.mu.Unlock()
		})
		defer t.Stop()
	}
	s.waitInput(&expired)
	return s.ready(), 0
}

func (s *stdin) isNonblocking() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nonblock
}

// setNonblocking is fd_fdstat_set_flags on fd 0; false refuses it. A
// command may switch (Go's runtime makes its stdin non-blocking at init,
// then waits for input in poll_oneoff, its timers running). A reactor's
// reads never wait anyway, and it may not: a Go reactor whose os.Stdin is
// non-blocking parks on an empty stdin and polls until its turn runs out,
// where a plain read hands it EAGAIN and it returns.
func (s *stdin) setNonblocking(on bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reactor {
		return false
	}
	s.nonblock = on
	return true
}

// waitIdle waits until the reactor has ended its turn and waits for input
// (tests use it to know that a line they write starts a turn of its own).
func (s *stdin) waitIdle() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for !s.idle && !s.aborted {
		s.cond.Wait()
	}
}

// next waits for a reason to run a reactor's turn: lines that arrived
// since the last one, or the end of input (last: the turn after which the
// instance ends). It returns run false when the instance is ending.
func (s *stdin) next() (run, last bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.arrived && !s.aborted {
		s.idle = true
		s.cond.Broadcast() // for waitIdle
		for !s.arrived && !s.aborted {
			s.cond.Wait()
		}
		s.idle = false
	}
	if s.aborted {
		return false, false
	}
	s.arrived = false
	return true, s.closed
}
