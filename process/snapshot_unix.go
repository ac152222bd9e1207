//go:build unix

package process

import (
	"sync"
	"time"
)

// snapshotAge is how old a snapshot Memory accepts. The host reads the
// memory of each plugin every 2 s on a ticker of its own; with this age, all
// of them together read the process table twice per period, however many
// plugins run, and a plugin past its limit is stopped at most a second
// later. Stop always takes a fresh one.
const snapshotAge = time.Second

// table is what a Launcher knows of the system's process table, for its
// own programs only: the latest snapshot, shared by all of them, and on
// Linux the tokens read and the processes adopted. Two launchers in one
// host process share none of it.
type table struct {
	snapshots snapshotCache
	tokens    map[tokenKey]string // guarded by tokensMu
	tokensMu  sync.Mutex
	adopted   map[procKey]bool // guarded by snapshots.mu (adopt runs under it)
}

func newTable() *table {
	t := &table{tokens: make(map[tokenKey]string), adopted: make(map[procKey]bool)}
	t.snapshots = snapshotCache{list: listProcesses, now: time.Now, adopt: t.adopt}
	return t
}

// snapshotCache holds the latest snapshot. Callers that need one fresher
// than the latest share the next read: while one reads the table, the
// others wait for it, or for the one after when theirs must have started
// after they asked. So 50 programs stopped at once cost a few reads, not 50.
type snapshotCache struct {
	list  func() ([]procInfo, error)
	now   func() time.Time
	adopt func(prev, cur *snapshot) // run on each new snapshot, under the lock; may be nil

	mu      sync.Mutex
	cond    *sync.Cond // signalled when a read ends
	reading bool
	started uint64 // reads started; a snapshot's seq is the number of its read
	last    *snapshot
	taken   time.Time // when the read of last started
}

// get returns a snapshot whose read started at most maxAge ago and after
// read number after (so that a program started since is in it); maxAge 0
// asks for one whose read starts after the call.
func (c *snapshotCache) get(maxAge time.Duration, after uint64) (*snapshot, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cond == nil {
		c.cond = sync.NewCond(&c.mu)
	}
	if c.last != nil && maxAge > 0 && c.now().Sub(c.taken) < maxAge && c.last.seq > after {
		return c.last, nil
	}
	need := max(c.started, after) + 1
	for {
		if c.last != nil && c.last.seq >= need {
			return c.last, nil
		}
		if !c.reading {
			return c.read()
		}
		c.cond.Wait()
	}
}

// read reads the table, without the lock meanwhile. Called with c.mu held.
func (c *snapshotCache) read() (*snapshot, error) {
	c.reading = true
	c.started++
	seq, at := c.started, c.now()
	c.mu.Unlock()
	procs, err := c.list()
	c.mu.Lock()
	c.reading = false
	c.cond.Broadcast()
	if err != nil {
		return nil, err
	}
	s := newSnapshot(seq, procs)
	if c.adopt != nil {
		c.adopt(c.last, s)
	}
	c.last, c.taken = s, at
	return s, nil
}

// current is the number of the latest read started.
func (c *snapshotCache) current() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.started
}

// tokenKey names what a token read holds for: one process running one
// program. An exec keeps the pid and the start time but starts the new
// program with the environment it is given (`env TOKEN=… prog` shows env's
// environment, then prog's), so a read is kept for the program it was
// made in, told by its command name. An exec to a program of the same
// name is not told apart; the group and the session still are.
type tokenKey struct {
	procKey
	image uint64
}
