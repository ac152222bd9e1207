package transport

import "sync"

// LastLines keeps the last lines of a program's stderr for
// Program.LastStderr (the crash entry's lines); safe for concurrent use.
// Every transport keeps them the same way.
type LastLines struct {
	mu    sync.Mutex
	lines []string // a ring of at most cap(lines) once full
	next  int      // where the next line goes once the ring is full
}

// NewLastLines keeps the last keep lines (at least one).
func NewLastLines(keep int) *LastLines {
	return &LastLines{lines: make([]string, 0, max(keep, 1))}
}

// Add keeps line, forgetting the oldest once full.
func (l *LastLines) Add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lines) < cap(l.lines) {
		l.lines = append(l.lines, line)
		return
	}
	l.lines[l.next] = line
	l.next = (l.next + 1) % len(l.lines)
}

// Snapshot returns the kept lines, oldest first.
func (l *LastLines) Snapshot() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]string, 0, len(l.lines))
	out = append(out, l.lines[l.next:]...)
	return append(out, l.lines[:l.next]...)
}
