//go:build unix

package process

import (
	"errors"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestFamily(t *testing.T) {
	const since = 50
	tree := []procInfo{
		{PID: 1, PGID: 1, StartTime: 1},
		{PID: 100, PPID: 1, PGID: 100, StartTime: since},      // the program
		{PID: 101, PPID: 100, PGID: 100, StartTime: 60},       // its child
		{PID: 102, PPID: 100, PGID: 102, StartTime: 61},       // a child in a group of its own
		{PID: 103, PPID: 102, PGID: 102, StartTime: 62},       // and its child
		{PID: 104, PPID: 1, PGID: 100, StartTime: 63},         // orphaned, still in the group
		{PID: 105, PPID: 1, PGID: 105, StartTime: 64},         // left the tree and the group
		{PID: 106, PPID: 105, PGID: 105, StartTime: 65},       // and its child
		{PID: 200, PPID: 1, PGID: 100, StartTime: since - 10}, // in a group of that id, but older than the program
		{PID: 300, PPID: 1, PGID: 300, StartTime: 70},         // unrelated
	}
	tests := []struct {
		name   string
		exited bool
		known  []procKey
		procs  []procInfo
		want   []int
	}{
		{"the tree and the group", false, nil, tree, []int{100, 101, 102, 103, 104}},
		{"and what was seen in the tree before", false, []procKey{{105, 64}}, tree, []int{100, 101, 102, 103, 104, 105, 106}},
		{"a known pid reused since", false, []procKey{{105, 40}}, tree, []int{100, 101, 102, 103, 104}},
		{"the program exited: what is left", true, []procKey{{102, 61}}, tree, []int{101, 102, 103, 104}},
		{"the program's pid reused", false, nil, []procInfo{{PID: 100, PPID: 1, PGID: 7, StartTime: 90}, {PID: 101, PPID: 100, PGID: 7, StartTime: 91}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := &group{pgid: 100, leader: 100, since: since, exited: func() bool { return tt.exited }, known: map[procKey]bool{}}
			for _, k := range tt.known {
				g.known[k] = true
			}
			got := pids(g.family(newSnapshot(1, tt.procs)))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("family (-want +got):\n%s", diff)
			}
			var known []int
			for k := range g.known {
				known = append(known, k.pid)
			}
			sort.Ints(known)
			if diff := cmp.Diff(without(tt.want, 100), known); diff != "" {
				t.Errorf("known after (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFamilyKeepsWhatAnOlderSnapshotMisses(t *testing.T) {
	g := &group{pgid: 100, leader: 100, exited: func() bool { return true }, known: map[procKey]bool{}}
	newer := newSnapshot(2, []procInfo{{PID: 101, PPID: 1, PGID: 101, StartTime: 5}})
	g.known[procKey{101, 5}] = true
	g.family(newer)
	g.family(newSnapshot(1, nil)) // taken before the other, read after it
	if diff := cmp.Diff([]int{101}, pids(g.family(newer))); diff != "" {
		t.Errorf("family (-want +got):\n%s", diff)
	}
}

func pids(procs []procInfo) []int {
	var out []int
	for _, p := range procs {
		out = append(out, p.PID)
	}
	sort.Ints(out)
	return out
}

func without(list []int, x int) []int {
	var out []int
	for _, n := range list {
		if n != x {
			out = append(out, n)
		}
	}
	return out
}

func TestSnapshotCache(t *testing.T) {
	now := time.Unix(1000, 0)
	reads := 0
	fail := false
	c := snapshotCache{
		now: func() time.Time { return now },
		list: func() ([]procInfo, error) {
			if fail {
				return nil, errors.New("no table")
			}
			reads++
			return []procInfo{{PID: reads}}, nil
		},
	}
	steps := []struct {
		name      string
		advance   time.Duration
		maxAge    time.Duration
		after     uint64
		fail      bool
		wantReads int
		wantErr   bool
	}{
		{"first read", 0, time.Second, 0, false, 1, false},
		{"within the age: shared", 999 * time.Millisecond, time.Second, 0, false, 1, false},
		{"past the age", time.Millisecond, time.Second, 0, false, 2, false},
		{"fresh asked", 0, 0, 0, false, 3, false},
		{"a program started after the latest", 0, time.Second, 3, false, 4, false},
		{"a failed read", 0, 0, 0, true, 4, true},
		{"the last good one is still shared", 0, time.Second, 0, false, 4, false},
	}
	for _, st := range steps {
		now = now.Add(st.advance)
		fail = st.fail
		s, err := c.get(st.maxAge, st.after)
		if (err != nil) != st.wantErr {
			t.Fatalf("%s: error %v, want one: %v", st.name, err, st.wantErr)
		}
		if reads != st.wantReads {
			t.Errorf("%s: %d reads of the table, want %d", st.name, reads, st.wantReads)
		}
		if err == nil && (s.seq != uint64(reads) || s.procs[0].PID != reads) {
			t.Errorf("%s: snapshot %d of read %d, want the latest", st.name, s.seq, s.procs[0].PID)
		}
	}
}

func TestFamilyWithoutStartTimes(t *testing.T) {
	// As ps lists them: no start time, so a pid seen before may be another
	// process now.
	procs := []procInfo{
		{PID: 100, PPID: 1, PGID: 100},
		{PID: 101, PPID: 100, PGID: 100},
		{PID: 105, PPID: 1, PGID: 105},
	}
	g := &group{pgid: 100, leader: 100, exited: func() bool { return false }, known: map[procKey]bool{{105, 0}: true}}
	if diff := cmp.Diff([]int{100, 101}, pids(g.family(newSnapshot(1, procs)))); diff != "" {
		t.Errorf("family (-want +got):\n%s", diff)
	}
}
