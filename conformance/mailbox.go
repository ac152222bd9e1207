package conformance

import (
	"errors"
	"sync"
	"time"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
)

// received is one line of answers the program wrote: a single answer, or
// the answers of an array line.
type received struct {
	batch   bool
	answers []*jsonrpc.Message
}

var (
	errTimeout = errors.New("no answer in time")
	errEnded   = errors.New("its stdout ended: the program exited or closed it")
)

// mailbox holds the answer lines the reader got until a check takes them.
type mailbox struct {
	mu     sync.Mutex
	lines  []received
	ended  bool
	signal chan struct{} // holds a token when lines or ended changed
}

func newMailbox() *mailbox {
	return &mailbox{signal: make(chan struct{}, 1)}
}

func (m *mailbox) put(r received) {
	m.mu.Lock()
	m.lines = append(m.lines, r)
	m.mu.Unlock()
	m.wake()
}

// end says no more lines will come.
func (m *mailbox) end() {
	m.mu.Lock()
	m.ended = true
	m.mu.Unlock()
	m.wake()
}

func (m *mailbox) wake() {
	select {
	case m.signal <- struct{}{}:
	default:
	}
}

// take returns the oldest line, waiting until deadline fires: errTimeout
// then, or errEnded once the stream ended and every line was taken.
func (m *mailbox) take(deadline <-chan time.Time) (received, error) {
	for {
		m.mu.Lock()
		if len(m.lines) > 0 {
			r := m.lines[0]
			m.lines = m.lines[1:]
			m.mu.Unlock()
			return r, nil
		}
		ended := m.ended
		m.mu.Unlock()
		if ended {
			return received{}, errEnded
		}
		select {
		case <-m.signal:
		case <-deadline:
			return received{}, errTimeout
		}
	}
}

// drain returns the lines nobody took, without waiting.
func (m *mailbox) drain() []received {
	m.mu.Lock()
	defer m.mu.Unlock()
	lines := m.lines
	m.lines = nil
	return lines
}
