package jsonrpc

import "time"

// deadlines keeps the calls that have a delay in one list per delay,
// oldest first, and one timer for them all, armed for the earliest
// deadline. Calls with the same delay expire in the order they started,
// so adding and removing one is O(1), and a call answered in time costs
// no timer operation at all: a timer already armed for an earlier
// deadline stays as it is, and when it fires it re-arms for the next one.
// The protocol has a handful of delays, so the lists stay few.
type deadlines struct {
	lists map[time.Duration]*callList
	timer *time.Timer
	armed time.Time // when timer fires; zero when it is not armed
}

// callList is a doubly linked list of the calls of one delay.
type callList struct {
	head, tail *pendingCall
}

// add puts call at the end of its delay's list and arms the timer when
// its deadline comes first. The timer's function runs c.expireDue.
func (d *deadlines) add(call *pendingCall, delay time.Duration, now time.Time, c *Conn) {
	call.delay, call.deadline = delay, now.Add(delay)
	if d.lists == nil {
		d.lists = make(map[time.Duration]*callList)
	}
	list := d.lists[delay]
	if list == nil {
		list = &callList{}
		d.lists[delay] = list
	}
	call.prev, call.next = list.tail, nil
	if list.tail != nil {
		list.tail.next = call
	} else {
		list.head = call
	}
	list.tail = call
	d.arm(call.deadline, c)
}

// remove takes call out of its list; the timer stays armed.
func (d *deadlines) remove(call *pendingCall) {
	list := d.lists[call.delay]
	if call.prev != nil {
		call.prev.next = call.next
	} else {
		list.head = call.next
	}
	if call.next != nil {
		call.next.prev = call.prev
	} else {
		list.tail = call.prev
	}
	call.prev, call.next, call.delay = nil, nil, 0
}

// arm makes the timer fire by at, unless it already fires earlier.
func (d *deadlines) arm(at time.Time, c *Conn) {
	if !d.armed.IsZero() && !at.Before(d.armed) {
		return
	}
	d.armed = at
	wait := time.Until(at)
	if d.timer == nil {
		d.timer = time.AfterFunc(wait, c.expireDue)
		return
	}
	d.timer.Reset(wait)
}

// next returns the earliest deadline of the lists, or the zero time.
func (d *deadlines) next() time.Time {
	var first time.Time
	for _, list := range d.lists {
		if list.head != nil && (first.IsZero() || list.head.deadline.Before(first)) {
			first = list.head.deadline
		}
	}
	return first
}

// stop disarms the timer for good: the connection has ended.
func (d *deadlines) stop() {
	if d.timer != nil {
		d.timer.Stop()
	}
	d.lists, d.armed = nil, time.Time{}
}

// expireDue runs when the timer fires: it fails the calls past their
// deadline and re-arms for the next one.
func (c *Conn) expireDue() {
	var kick bool
	c.state.update(func(s *connState) {
		if s.end.calls != nil {
			return
		}
		now := time.Now()
		s.timers.armed = time.Time{}
		kick = s.expire(now) && s.token.byCaller
		if next := s.timers.next(); !next.IsZero() {
			s.timers.arm(next, c)
		}
	})
	if kick {
		c.kick() // the caller reading may be one whose call just expired
	}
}
