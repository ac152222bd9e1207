//go:build unix

package process

import (
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// softStop is true where the group can be asked to terminate before it is
// killed.
const softStop = true

// killWait bounds the wait of each round of a kill for what it killed to be
// gone (killRounds, per platform, bounds the rounds).
const killWait = 2 * time.Second

// group is everything the program started: the process group it leads,
// and on Linux every process that left the group (setsid, setpgid, a
// daemon's double fork), found by the tag it inherited or because it was
// seen in the tree before.
type group struct {
	table  *table // its launcher's
	pgid   int
	leader int
	since  uint64 // the leader's start time: no older process is the program's
	token  string // the tag every process of the program inherits; "" where unused
	exited func() bool
	bornAt uint64        // the latest snapshot when it started, which cannot hold it
	exitAt atomic.Uint64 // the latest snapshot when the leader exited, which may show it running

	mu      sync.Mutex
	gone    bool // the group was seen empty: its id may be reused, never signal it again
	done    bool // released: nothing of the program is left
	known   map[procKey]bool
	knownAt uint64 // seq of the snapshot known was last pruned with
}

func newGroup(t *table, leader *os.Process, token string, exited func() bool) (*group, error) {
	since := startTimeOf(leader.Pid)
	watchGroup(token, leader.Pid, since)
	return &group{
		table:  t,
		pgid:   leader.Pid,
		leader: leader.Pid,
		since:  since,
		token:  token,
		exited: exited,
		bornAt: t.snapshots.current(),
		known:  make(map[procKey]bool),
	}, nil
}

// family returns the processes of the program in s, and remembers them, so
// that a process that leaves the tree later is still known as the
// program's. Called with g.mu held.
func (g *group) family(s *snapshot) []procInfo {
	var roots []int
	if !g.exited() {
		if p, ok := s.lookup(g.leader); ok && (g.since == 0 || p.StartTime == g.since) {
			roots = append(roots, g.leader)
		}
	}
	for _, p := range s.procs {
		if p.StartTime < g.since || p.PID == g.leader {
			continue
		}
		// A pid known without a start time (ps tells none) may have been
		// reused since: only the group and the tree name it then.
		known := p.StartTime != 0 && g.known[p.key()]
		if p.PGID == g.pgid || known || (g.token != "" && g.table.tokenOf(p) == g.token) {
			roots = append(roots, p.PID)
		}
	}
	fam := s.descendants(roots)
	if s.seq >= g.knownAt { // an older snapshot lacks what was born since: it must not prune
		g.known = make(map[procKey]bool, len(fam))
		g.knownAt = s.seq
	}
	for _, p := range fam {
		if p.PID != g.leader {
			g.known[p.key()] = true
		}
	}
	return fam
}

// memory sums the resident bytes of the program and of all it started, and
// reaps those of them that ended as orphans of the host.
func (g *group) memory() (uint64, error) { return g.memoryWithin(snapshotAge) }

// memoryWithin is memory from a snapshot at most maxAge old (0: fresh).
func (g *group) memoryWithin(maxAge time.Duration) (uint64, error) {
	s, err := g.table.snapshots.get(maxAge, max(g.bornAt, g.exitAt.Load()))
	if err != nil {
		return 0, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.done {
		return 0, nil
	}
	fam := g.family(s)
	reap(fam, g.leader)
	return sumRSS(fam), nil
}

// terminate sends SIGTERM to every process of the program.
func (g *group) terminate() { g.signalAll(syscall.SIGTERM) }

func (g *group) signalAll(sig syscall.Signal) {
	if g.released() {
		return
	}
	g.mu.Lock()
	g.signalGroup(sig) // at once: the table is read after
	g.mu.Unlock()
	s, err := g.table.snapshots.get(0, 0)
	g.mu.Lock()
	defer g.mu.Unlock()
	if err == nil {
		closeAll(signalProcs(g.outsideGroup(g.family(s)), sig))
	}
}

// outsideGroup is the processes of fam that the signal to the group did not
// reach: a program that counts its SIGTERMs gets one.
func (g *group) outsideGroup(fam []procInfo) []procInfo {
	if g.gone {
		return fam
	}
	var out []procInfo
	for _, p := range fam {
		if p.PGID != g.pgid {
			out = append(out, p)
		}
	}
	return out
}

// kill kills every process of the program, again while it keeps starting
// new ones, waits until they are gone and reaps those the host adopted.
func (g *group) kill() {
	if g.released() {
		return // a Stop killed it all already
	}
	g.mu.Lock()
	g.signalGroup(syscall.SIGKILL) // at once: the table is read after
	g.mu.Unlock()
	for range killRounds {
		s, err := g.table.snapshots.get(0, 0)
		if err != nil {
			return
		}
		g.mu.Lock()
		g.signalGroup(syscall.SIGKILL)
		fam := g.family(s)
		killed := signalProcs(fam, syscall.SIGKILL)
		g.mu.Unlock()
		awaitExit(killed, killWait)
		reap(fam, g.leader)
		if !anyRunning(fam) {
			return // none could have started another since
		}
	}
	g.reapFamily()
}

func anyRunning(procs []procInfo) bool {
	for _, p := range procs {
		if !p.zombie() {
			return true
		}
	}
	return false
}

// reapFamily reaps what is left of the program as zombies of the host.
func (g *group) reapFamily() {
	s, err := g.table.snapshots.get(0, 0)
	if err != nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	reap(g.family(s), g.leader)
}

func (g *group) signalGroup(sig syscall.Signal) {
	if g.gone {
		return
	}
	if err := syscall.Kill(-g.pgid, sig); errors.Is(err, syscall.ESRCH) {
		g.gone = true
	}
}

// noteExit marks the leader's exit: Memory then reads a table read after
// it, so what is counted is what the program left, not a reading taken
// while it ran.
func (g *group) noteExit() { g.exitAt.Store(g.table.snapshots.current()) }

// release forgets the program once it was killed: Memory is then 0.
func (g *group) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.done {
		forgetToken(g.token)
	}
	g.done = true
	clear(g.known)
}

func (g *group) released() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.done
}

// exitOf reads how the leader ended.
func (g *group) exitOf(state *os.ProcessState) Exit {
	if sig, ok := signalOf(state); ok {
		return Exit{Code: signalledCode, Signal: sig.String()}
	}
	return Exit{Code: state.ExitCode()}
}

// shellCode is how a shell reports the end of state's process: its exit
// code, or 128 + the number of the signal that ended it.
func shellCode(state *os.ProcessState) int {
	if sig, ok := signalOf(state); ok {
		return 128 + int(sig)
	}
	return state.ExitCode()
}

// signalOf is the signal that ended state's process, if one did.
func signalOf(state *os.ProcessState) (syscall.Signal, bool) {
	status, ok := state.Sys().(syscall.WaitStatus)
	if !ok || !status.Signaled() {
		return 0, false
	}
	return status.Signal(), true
}
