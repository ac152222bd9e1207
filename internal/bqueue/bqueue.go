// Package bqueue holds Queue, a FIFO shared between goroutines, bounded or
// not, with a policy for a full queue: drop the oldest item, refuse the new
// one, or make the pusher wait. Consumers wait with a context, or select on
// Ready beside their other channels.
//
// It replaces the idiom of a slice guarded by a mutex beside a channel of
// one token that wakes the consumer: the token, the re-arming and the end
// are written once here.
package bqueue

import (
	"context"
	"errors"
	"sync"
)

// Policy says what Push does when the queue holds its limit.
type Policy int

const (
	// DropOldest queues the new item and drops the oldest, which Push
	// returns: the newest news matters most.
	DropOldest Policy = iota
	// Refuse keeps the queue as it is and returns ErrFull.
	Refuse
	// Block makes PushWait wait for room; Push returns ErrFull.
	Block
)

var (
	// ErrFull is returned by a push the policy refuses.
	ErrFull = errors.New("bqueue: queue full")
	// ErrClosed is returned by a push after Close, and by a wait once the
	// queue is closed and empty.
	ErrClosed = errors.New("bqueue: queue closed")
)

// Queue is a FIFO of T. Its methods are safe for concurrent use. The zero
// value is not usable: make one with New.
type Queue[T any] struct {
	limit  int // at most this many items; 0: no limit
	policy Policy

	mu     sync.Mutex
	items  []T // items[head:] are queued, oldest first
	head   int
	closed bool

	ready chan struct{} // a token: items were queued, or the queue closed
	room  chan struct{} // a token: an item left a full Block queue
	done  chan struct{} // closed by Close
}

// New makes a queue of at most limit items (limit <= 0: no limit, and the
// policy never applies).
func New[T any](limit int, policy Policy) *Queue[T] {
	return &Queue[T]{
		limit:  max(limit, 0),
		policy: policy,
		ready:  make(chan struct{}, 1),
		room:   make(chan struct{}, 1),
		done:   make(chan struct{}),
	}
}

// Push adds v at the back without ever waiting. On a full queue the
// policy decides: DropOldest queues v and returns the oldest item with
// wasDropped set; Refuse and Block return ErrFull, v not queued. After
// Close it returns ErrClosed.
func (q *Queue[T]) Push(v T) (dropped T, wasDropped bool, err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return dropped, false, ErrClosed
	}
	if q.full() {
		if q.policy != DropOldest {
			return dropped, false, ErrFull
		}
		dropped, wasDropped = q.take(), true
	}
	q.add(v)
	return dropped, wasDropped, nil
}

// PushWait adds v at the back. On a full Block queue it waits for room, for
// Close (ErrClosed) or for ctx (its error); under the other policies it is
// Push without the dropped item.
func (q *Queue[T]) PushWait(ctx context.Context, v T) error {
	if q.policy != Block {
		_, _, err := q.Push(v)
		return err
	}
	for {
		q.mu.Lock()
		if q.closed {
			q.mu.Unlock()
			return ErrClosed
		}
		if !q.full() {
			q.add(v)
			if !q.full() {
				signal(q.room) // another pusher may be waiting for this room
			}
			q.mu.Unlock()
			return nil
		}
		q.mu.Unlock()
		select {
		case <-q.room:
		case <-q.done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// TryPop takes the oldest item without waiting; ok is false when the queue
// is empty.
func (q *Queue[T]) TryPop() (v T, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.len() == 0 {
		return v, false
	}
	v = q.take()
	q.taken()
	return v, true
}

// Pop takes the oldest item, waiting for one. It returns ErrClosed once the
// queue is closed and empty, or ctx's error.
func (q *Queue[T]) Pop(ctx context.Context) (T, error) {
	for {
		if v, ok := q.TryPop(); ok {
			return v, nil
		}
		if err := q.wait(ctx); err != nil {
			var zero T
			return zero, err
		}
	}
}

// Drain takes every item queued, oldest first, without waiting (nil when
// the queue is empty).
func (q *Queue[T]) Drain() []T {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.len() == 0 {
		return nil
	}
	items := q.items[q.head:]
	q.items, q.head = nil, 0 // the taker owns the old array now
	q.taken()
	return items
}

// PopAll takes every item queued, waiting for at least one. It returns
// ErrClosed once the queue is closed and empty, or ctx's error.
func (q *Queue[T]) PopAll(ctx context.Context) ([]T, error) {
	for {
		if items := q.Drain(); items != nil {
			return items, nil
		}
		if err := q.wait(ctx); err != nil {
			return nil, err
		}
	}
}

// Ready has a value when items may have been queued, or the queue closed,
// since the last time it was read: a consumer selecting on other channels
// too reads it, then Drains (which may find nothing: a wake-up is a hint).
// Only one goroutine should read it; the methods that wait read it too.
func (q *Queue[T]) Ready() <-chan struct{} { return q.ready }

// Done is closed by Close.
func (q *Queue[T]) Done() <-chan struct{} { return q.done }

// Len is how many items are queued.
func (q *Queue[T]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.len()
}

// Close refuses pushes from now on and wakes every waiter. The items queued
// stay for the consumers, whose waits end with ErrClosed once they are
// taken. Calling it again does nothing.
func (q *Queue[T]) Close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	q.closed = true
	close(q.done)
	signal(q.ready)
}

// Closed reports whether Close was called.
func (q *Queue[T]) Closed() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.closed
}

// wait waits for a token, for Close once the queue is empty, or for ctx.
func (q *Queue[T]) wait(ctx context.Context) error {
	q.mu.Lock()
	end := q.closed && q.len() == 0
	q.mu.Unlock()
	if end {
		return ErrClosed
	}
	select {
	case <-q.ready:
		return nil
	case <-q.done:
		return nil // the next round takes what is left, then ends
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (q *Queue[T]) len() int { return len(q.items) - q.head }

func (q *Queue[T]) full() bool { return q.limit > 0 && q.len() >= q.limit }

// add appends v and wakes a consumer. q.mu is held.
func (q *Queue[T]) add(v T) {
	if q.head > 0 && len(q.items) == cap(q.items) {
		// Reuse the room of the items taken before the array grows.
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
	q.items = append(q.items, v)
	signal(q.ready)
}

// take removes the oldest item. q.mu is held and the queue is not empty.
func (q *Queue[T]) take() T {
	var zero T
	v := q.items[q.head]
	q.items[q.head] = zero // let the item go
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	}
	return v
}

// taken re-arms the wake-ups after a consumer took items. q.mu is held.
func (q *Queue[T]) taken() {
	if q.len() > 0 {
		signal(q.ready) // another consumer may be waiting for what is left
	}
	if q.policy == Block {
		signal(q.room)
	}
}

// signal leaves a token in c unless one is there already.
func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}
