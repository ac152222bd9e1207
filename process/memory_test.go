package process

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const testPageSize = 4096

func TestParseStat(t *testing.T) {
	tail := " 0 0 0 0 20 0 1 0 100 1000 " // utime … vsize, then rss
	tests := []struct {
		name    string
		line    string
		want    procInfo
		wantErr bool
	}{
		{"plain", "42 (plugin) S 7 42 42 0 -1 4194304 100 0 0 0" + tail + "250 18446744073709551615 1 1 0",
			procInfo{PID: 42, PPID: 7, PGID: 42, StartTime: 100, State: 'S', RSS: 250 * testPageSize, Image: nameHash([]byte("plugin"))}, false},
		{"name with spaces and parentheses", "43 (a) (b c)) R 42 42 1 0 -1 0 0 0 0 0" + tail + "3\n",
			procInfo{PID: 43, PPID: 42, PGID: 42, StartTime: 100, State: 'R', RSS: 3 * testPageSize, Image: nameHash([]byte("a) (b c)"))}, false},
		{"zombie", "44 (z) Z 1 42 1 0 -1 0 0 0 0 0" + tail + "0",
			procInfo{PID: 44, PPID: 1, PGID: 42, StartTime: 100, State: 'Z', Image: nameHash([]byte("z"))}, false},
		{"negative rss counts nothing", "45 (n) S 1 1 1 0 -1 0 0 0 0 0" + tail + "-5",
			procInfo{PID: 45, PPID: 1, PGID: 1, StartTime: 100, State: 'S', Image: nameHash([]byte("n"))}, false},
		{"empty", "", procInfo{}, true},
		{"no name", "42 S 7 42", procInfo{}, true},
		{"no pid", "(plugin) S 7 42 42 0 -1 0 0 0 0 0" + tail + "1", procInfo{}, true},
		{"pid not a number", "x (plugin) S 7 42 42 0 -1 0 0 0 0 0" + tail + "1", procInfo{}, true},
		{"too few fields", "42 (plugin) S 7 42 42", procInfo{}, true},
		{"state of two letters", "42 (plugin) SS 7 42 42 0 -1 0 0 0 0 0" + tail + "1", procInfo{}, true},
		{"ppid not a number", "42 (plugin) S x 42 42 0 -1 0 0 0 0 0" + tail + "1", procInfo{}, true},
		{"start time not a number", "42 (plugin) S 7 42 42 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 soon 1000 1", procInfo{}, true},
		{"rss not a number", "42 (plugin) S 7 42 42 0 -1 0 0 0 0 0" + tail + "lots", procInfo{}, true},
		{"parentheses reversed", "42 )plugin( S 7 42 42 0 -1 0 0 0 0 0" + tail + "1", procInfo{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStat([]byte(tt.line), testPageSize)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, want one: %v", err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, errBadStat) {
				t.Errorf("error %v does not wrap errBadStat", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parseStat (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNameHashTellsNamesApart(t *testing.T) {
	if nameHash([]byte("env")) == nameHash([]byte("sleep")) || nameHash([]byte("env")) != nameHash([]byte("env")) {
		t.Error("the command names env and sleep are not told apart")
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add([]byte("42 (plugin) S 7 42 42 0 -1 4194304 100 0 0 0 0 0 0 0 20 0 1 0 100 1000 250 1 1 0"))
	f.Add([]byte("1 ((x)) Z 0 0 0"))
	f.Fuzz(func(t *testing.T, line []byte) {
		got, err := parseStat(line, testPageSize)
		if err != nil {
			if got != (procInfo{}) {
				t.Fatalf("error %v with a result %+v", err, got)
			}
			return
		}
		if got.RSS%testPageSize != 0 || got.State == 0 {
			t.Fatalf("result %+v: rss not in pages or no state", got)
		}
	})
}

func TestParsePS(t *testing.T) {
	tests := []struct {
		name    string
		out     string
		want    []procInfo
		wantErr bool
	}{
		{"table", "    1     0     1  1200\n  420     1   420 51200\n  421   420   420     8\n", []procInfo{
			{PID: 1, PGID: 1, RSS: 1200 << 10},
			{PID: 420, PPID: 1, PGID: 420, RSS: 50 << 20},
			{PID: 421, PPID: 420, PGID: 420, RSS: 8 << 10},
		}, false},
		{"blank lines skipped", "\n 5 1 5 1\n\n", []procInfo{{PID: 5, PPID: 1, PGID: 5, RSS: 1 << 10}}, false},
		{"nothing", "", nil, false},
		{"too few columns", "5 1 5\n", nil, true},
		{"too many columns", "5 1 5 1 1\n", nil, true},
		{"not a number", "5 1 5 1k\n", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parsePS([]byte(tt.out))
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, want one: %v", err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, errBadPS) {
				t.Errorf("error %v does not wrap errBadPS", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parsePS (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzParsePS(f *testing.F) {
	f.Add([]byte("  420     1   420 51200\n"))
	f.Add([]byte("1 2 3\n4 5 6 7 8"))
	f.Fuzz(func(t *testing.T, out []byte) {
		procs, err := parsePS(out)
		if err != nil && procs != nil {
			t.Fatalf("error %v with results %+v", err, procs)
		}
		for _, p := range procs {
			if p.RSS%psKiB != 0 {
				t.Fatalf("rss %d not in KiB", p.RSS)
			}
		}
	})
}

func TestDescendants(t *testing.T) {
	procs := []procInfo{
		{PID: 1, PPID: 0, PGID: 1, RSS: 1},
		{PID: 100, PPID: 1, PGID: 100, RSS: 10},      // the program
		{PID: 101, PPID: 100, PGID: 100, RSS: 100},   // its child
		{PID: 102, PPID: 101, PGID: 100, RSS: 1000},  // a grandchild
		{PID: 103, PPID: 100, PGID: 103, RSS: 10000}, // a child in a group of its own
		{PID: 104, PPID: 103, PGID: 103, RSS: 100000},
		{PID: 105, PPID: 1, PGID: 100, RSS: 1000000},  // orphaned, still in the group
		{PID: 200, PPID: 1, PGID: 200, RSS: 20000000}, // unrelated
		{PID: 201, PPID: 200, PGID: 200, RSS: 200000000},
	}
	tests := []struct {
		name  string
		procs []procInfo
		roots []int
		want  uint64
	}{
		{"the whole tree", procs, []int{100}, 111110},
		{"two roots, one under the other", procs, []int{100, 103, 105}, 1111110},
		{"a root that is gone", procs[:1], []int{100}, 0},
		{"nothing", nil, []int{100}, 0},
		{"an unrelated root", procs, []int{200}, 220000000},
		{"a loop of parents", []procInfo{{PID: 7, PPID: 8, RSS: 1}, {PID: 8, PPID: 7, RSS: 2}}, []int{7}, 3},
	}
	for _, tt := range tests {
		if got := sumRSS(newSnapshot(1, tt.procs).descendants(tt.roots)); got != tt.want {
			t.Errorf("%s: resident bytes = %d, want %d", tt.name, got, tt.want)
		}
	}
}
