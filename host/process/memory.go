package process

// procInfo is what Memory needs to know of one process of the machine.
type procInfo struct {
	PID, PPID, PGID int
	State           byte   // as in /proc/<pid>/stat ('Z' for a zombie); 0 when unknown
	RSS             uint64 // resident bytes
}

// treeRSS sums the resident bytes of the processes in roots, of those in
// process group pgid (children whose parent died were reparented away from
// the tree but stay in the group), and of all their descendants.
func treeRSS(procs []procInfo, roots []int, pgid int) uint64 {
	byPID := make(map[int]procInfo, len(procs))
	children := make(map[int][]int)
	for _, p := range procs {
		byPID[p.PID] = p
		children[p.PPID] = append(children[p.PPID], p.PID)
	}
	queue := append([]int(nil), roots...)
	for _, p := range procs {
		if pgid > 0 && p.PGID == pgid {
			queue = append(queue, p.PID)
		}
	}
	seen := make(map[int]bool)
	var total uint64
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		p, ok := byPID[pid]
		if !ok || seen[pid] {
			continue
		}
		seen[pid] = true
		total += p.RSS
		queue = append(queue, children[pid]...)
	}
	return total
}
