package timer

import (
	"time"

	"github.com/escouade-dev/escouade-plugin/vocab/proto"
)

// entry is one pending timer.
type entry struct {
	id    proto.TimerID
	due   time.Time
	index int // in the queue; -1 once taken out of it
}

// queue is a heap of pending timers: the earliest due first, and among
// timers due at the same time the one set first (ids grow in set order).
type queue []*entry

func (q queue) Len() int { return len(q) }

func (q queue) Less(i, j int) bool {
	if !q[i].due.Equal(q[j].due) {
		return q[i].due.Before(q[j].due)
	}
	return q[i].id < q[j].id
}

func (q queue) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].index = i
	q[j].index = j
}

func (q *queue) Push(x any) {
	e := x.(*entry)
	e.index = len(*q)
	*q = append(*q, e)
}

func (q *queue) Pop() any {
	old := *q
	e := old[len(old)-1]
	old[len(old)-1] = nil
	e.index = -1
	*q = old[:len(old)-1]
	return e
}
