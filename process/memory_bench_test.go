//go:build linux

package process

import (
	"context"
	"sync"
	"syscall"
	"testing"
	"time"
)

// idlePlugins is how many idle programs the memory benchmarks watch.
const idlePlugins = 50

// memoryPeriod is the host's period between two reads of a plugin's
// memory (docs/protocol.md#9-stopping-closing-and-user-changes).
const memoryPeriod = 2 * time.Second

// BenchmarkMemoryOfFiftyIdle measures what watching the memory of 50 idle
// programs costs the host per period of 2 s: each iteration is one period,
// in which every program's Memory is read once, at evenly spread moments of
// a simulated clock, as the host's 50 tickers do. "shared" is how Memory
// reads (one snapshot of the process table for all that ask within
// snapshotAge), "walk-each" a fresh read of the table per program, as
// before. Metrics: %core, the host's CPU time (getrusage: its own threads,
// not the programs') per period over the period, the share of one core
// watching costs; reads/period, how often the table was read.
func BenchmarkMemoryOfFiftyIdle(b *testing.B) {
	l := NewLauncher()
	programs := startIdle(b, l, idlePlugins)
	for _, bc := range []struct {
		name   string
		maxAge time.Duration
	}{
		{"shared", snapshotAge},
		{"walk-each", 0},
	} {
		b.Run(bc.name, func(b *testing.B) {
			reads := countReads(b, l.table)
			clock := useClock(b, l.table)
			before := cpuTime(b)
			for b.Loop() {
				for _, p := range programs {
					clock.advance(memoryPeriod / idlePlugins)
					if _, err := p.group.memoryWithin(bc.maxAge); err != nil {
						b.Fatal(err)
					}
				}
			}
			perPeriod := (cpuTime(b) - before) / time.Duration(b.N)
			b.ReportMetric(float64(perPeriod)/float64(memoryPeriod)*100, "%core")
			b.ReportMetric(float64(*reads)/float64(b.N), "reads/period")
		})
	}
}

// simClock is the snapshot cache's clock in a benchmark.
type simClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *simClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func (c *simClock) read() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// useClock makes the snapshot cache tell time by a simulated clock until
// the benchmark ends.
func useClock(b *testing.B, t *table) *simClock {
	snapshots := &t.snapshots
	clock := &simClock{now: time.Now()}
	snapshots.mu.Lock()
	saved := snapshots.now
	snapshots.now = clock.read
	snapshots.mu.Unlock()
	b.Cleanup(func() {
		snapshots.mu.Lock()
		snapshots.now = saved
		snapshots.mu.Unlock()
	})
	return clock
}

// countReads counts the reads of the process table until the benchmark
// ends.
func countReads(b *testing.B, t *table) *int {
	snapshots := &t.snapshots
	n := new(int)
	snapshots.mu.Lock()
	saved := snapshots.list
	snapshots.list = func() ([]procInfo, error) { *n++; return saved() }
	snapshots.mu.Unlock()
	b.Cleanup(func() {
		snapshots.mu.Lock()
		snapshots.list = saved
		snapshots.mu.Unlock()
	})
	return n
}

// BenchmarkStopFiftyAfterShutdown stops 50 programs that ignore stdin and
// SIGTERM, all at once, as Host.Close does once their shutdown delay ran
// out (StopAlreadyAsked), with the host's 500 ms grace: the
// wall time per close is the metric, one grace and the kill.
func BenchmarkStopFiftyAfterShutdown(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		programs := startIdle(b, NewLauncher(), idlePlugins)
		b.StartTimer()
		var wg sync.WaitGroup
		for _, p := range programs {
			wg.Go(func() { p.StopAlreadyAsked(context.Background(), DefaultGrace) })
		}
		wg.Wait()
	}
}

// startIdle starts n programs that hold, ignoring stdin and SIGTERM, all
// with launcher l, as a host's transport does.
func startIdle(tb testing.TB, l *Launcher, n int) []*Process {
	tb.Helper()
	programs := make([]*Process, n)
	for i := range programs {
		programs[i] = startOn(tb, l, fakeSpec(tb, "ignore-term"))
	}
	for _, p := range programs {
		if got := nextLine(tb, stdoutLines(tb, p)); got != "ready" {
			tb.Fatalf("program said %q, want ready", got)
		}
	}
	return programs
}

// cpuTime is the user and system time the host has used.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
