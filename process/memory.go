package process

// procInfo is what Memory and Stop need to know of one process of the
// machine.
type procInfo struct {
	PID, PPID, PGID int
	// StartTime is when the process started, in clock ticks since boot
	// (Linux); 0 when unknown. With the pid it names one process for good,
	// since a pid is reused once its process is gone.
	StartTime uint64
	State     byte   // as in /proc/<pid>/stat ('Z' for a zombie); 0 when unknown
	RSS       uint64 // resident bytes
	// Image is a hash of the process's command name (Linux: the name in
	// /proc/<pid>/stat), which an exec changes to the new program's; 0
	// when unknown.
	Image uint64
}

// procKey names one process: a pid and the start time that tells it apart
// from a later process given the same pid.
type procKey struct {
	pid   int
	start uint64
}

func (p procInfo) key() procKey { return procKey{p.PID, p.StartTime} }

func (p procInfo) zombie() bool { return p.State == 'Z' }

// snapshot is the process table of the machine at one moment, indexed.
// One snapshot serves every Process that asks within its age, so watching
// many plugins costs one read of the table per period, not one each.
type snapshot struct {
	seq      uint64 // grows with each snapshot taken
	procs    []procInfo
	byPID    map[int]int   // index in procs
	children map[int][]int // pids by parent pid
}

func newSnapshot(seq uint64, procs []procInfo) *snapshot {
	s := &snapshot{seq: seq, procs: procs, byPID: make(map[int]int, len(procs)), children: make(map[int][]int)}
	for i, p := range procs {
		s.byPID[p.PID] = i
		s.children[p.PPID] = append(s.children[p.PPID], p.PID)
	}
	return s
}

// lookup returns the process pid of the snapshot.
func (s *snapshot) lookup(pid int) (procInfo, bool) {
	i, ok := s.byPID[pid]
	if !ok {
		return procInfo{}, false
	}
	return s.procs[i], true
}

// descendants returns the processes in roots and all their descendants,
// each once; a root that is not in the snapshot is skipped.
func (s *snapshot) descendants(roots []int) []procInfo {
	queue := append([]int(nil), roots...)
	seen := make(map[int]bool, len(roots))
	var out []procInfo
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		p, ok := s.lookup(pid)
		if !ok || seen[pid] {
			continue
		}
		seen[pid] = true
		out = append(out, p)
		queue = append(queue, s.children[pid]...)
	}
	return out
}

// sumRSS is the resident bytes of procs together.
func sumRSS(procs []procInfo) uint64 {
	var total uint64
	for _, p := range procs {
		total += p.RSS
	}
	return total
}
