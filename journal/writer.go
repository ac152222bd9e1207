package journal

import (
	"context"
	"slices"
)

// run is the writer goroutine: it takes the queued lines in batches, writes
// them, hands them to subscribers, and stops once Close has been called and
// nothing is left.
func (j *Journal) run() {
	defer close(j.done)
	for {
		batch, stop := j.next()
		if stop {
			j.finish(0, j.out.close())
			return
		}
		if j.hooks.beforeWrite != nil {
			j.hooks.beforeWrite()
		}
		err := j.out.write(batch)
		j.subs.deliver(batch)
		j.finish(len(batch), err)
	}
}

// next waits for lines to write. stop reports that Close was called and
// every line queued before it has been taken.
func (j *Journal) next() (batch []string, stop bool) {
	writes, err := j.pending.PopAll(context.Background())
	return slices.Concat(writes...), err != nil // only ErrClosed: the context never ends
}

// finish records that n lines are done with, and err if it is the first.
func (j *Journal) finish(n int, err error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.written += uint64(n)
	if j.err == nil {
		j.err = err
	}
	j.moved.Broadcast()
}
