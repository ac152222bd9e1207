//go:build unix

package process

import (
	"sync"
	"time"
)

// snapshotAge is how old a snapshot Memory accepts. The host reads the
// memory of each plugin every 2 s on a ticker of its own; with this age, all
// of them together read the process table at most four times per period,
// however many plugins run. Stop always takes a fresh one.
const snapshotAge = 500 * time.Millisecond

// snapshots is the process table shared by every Process of the host.
var snapshots = snapshotCache{list: listProcesses, now: time.Now}

// snapshotCache holds the latest snapshot. Taking one holds the lock, so
// callers that arrive during a read wait for it instead of reading too.
type snapshotCache struct {
	list func() ([]procInfo, error)
	now  func() time.Time

	mu    sync.Mutex
	last  *snapshot
	taken time.Time
	seq   uint64
}

// get returns a snapshot taken at most maxAge ago (0: a fresh one).
func (c *snapshotCache) get(maxAge time.Duration) (*snapshot, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if c.last != nil && maxAge > 0 && now.Sub(c.taken) < maxAge {
		return c.last, nil
	}
	procs, err := c.list()
	if err != nil {
		return nil, err
	}
	c.seq++
	s := newSnapshot(c.seq, procs)
	adopt(c.last, s)
	c.last, c.taken = s, now
	return s, nil
}
