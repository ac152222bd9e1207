package jsonrpc

import "sync"

// noteQueue hands the peer's notifications from the reader to the one
// goroutine that serves them, in order, without ever blocking the reader.
// It is unbounded: a peer that floods notifications faster than they are
// served costs memory, not lost messages.
type noteQueue struct {
	mu     sync.Mutex
	queued []*Message
	ready  chan struct{} // a wake-up for the server; one pending is enough
}

func newNoteQueue() noteQueue {
	return noteQueue{ready: make(chan struct{}, 1)}
}

// push queues a notification when there is a handler to serve it.
func (q *noteQueue) push(m *Message, served bool) {
	if !served {
		return
	}
	q.mu.Lock()
	q.queued = append(q.queued, m)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// takeAll empties the queue.
func (q *noteQueue) takeAll() []*Message {
	q.mu.Lock()
	defer q.mu.Unlock()
	queued := q.queued
	q.queued = nil
	return queued
}

// serveNotifications serves notifications in order until the reader has
// stopped and the queue is drained.
func (c *Conn) serveNotifications() {
	for {
		for _, m := range c.notes.takeAll() {
			c.opts.Handle(c.serveCtx, m)
		}
		select {
		case <-c.notes.ready:
		case <-c.done:
			for _, m := range c.notes.takeAll() {
				c.opts.Handle(c.serveCtx, m)
			}
			return
		}
	}
}
