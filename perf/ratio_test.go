package perf

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// perfEnv turns TestReportRatios on when set to "1": it takes seconds
// and its verdict depends on the machine, so it stays out of go test ./...
const perfEnv = "ESCOUADE_PERF"

// sidesEnv, when set, lists the sides TestReportRatios measures, comma
// separated, the baseline always first: a quicker look at a few.
const sidesEnv = "ESCOUADE_PERF_SIDES"

// chosenRigs is rigs, less the sides sidesEnv leaves out.
func chosenRigs() []rigSpec {
	all := rigs()
	names := os.Getenv(sidesEnv)
	if names == "" {
		return all
	}
	keep := strings.Split(names, ",")
	chosen := all[:1]
	for _, spec := range all[1:] {
		if slices.Contains(keep, spec.name) {
			chosen = append(chosen, spec)
		}
	}
	return chosen
}

// The targets the host is held to. They are checked for targetSide, the
// host calling the same child program as baselineSide, the pipe fed fixed
// bytes; the other sides are reported to tell the costs apart.
const (
	baselineSide       = "pipe"
	targetSide         = "host"
	goPluginSide       = "go-plugin"
	maxLatencyRatio    = 1.5 // host round trip / pipe round trip, at most
	minThroughputRatio = 0.5 // host batch throughput / pipe, at least
	minPeerFactor      = 4.0 // go-plugin round trip / host round trip, at least
)

// ratioPlan is how TestReportRatios samples. Machines are noisy, so every
// round measures each side in turn, and each side's ratio to the raw pipe
// is taken within a round before the median of the rounds is kept: two
// samples taken a fraction of a second apart share the machine's load.
type ratioPlan struct {
	rounds     int // samples per side and measure
	warmup     int // round trips each side makes before the first round
	roundTrips int // calls per latency sample
	batches    int // batches per throughput sample
}

// roundsEnv, when set, is the number of rounds TestReportRatios takes.
const roundsEnv = "ESCOUADE_PERF_ROUNDS"

// sampleBudget bounds one sample of a slow side: it stops after this
// long with what it measured, at least one operation.
const sampleBudget = 150 * time.Millisecond

func defaultPlan() ratioPlan {
	plan := ratioPlan{rounds: 21, warmup: 300, roundTrips: 1000, batches: 40}
	if n, err := strconv.Atoi(os.Getenv(roundsEnv)); err == nil && n > 0 {
		plan.rounds = n
	}
	return plan
}

// sideResult is one side's medians over the rounds.
type sideResult struct {
	name       string
	latency    time.Duration // per call, one at a time
	throughput float64       // messages per second, in batches
	// The medians of the side's ratios to the raw pipe in each round.
	latencyRatio, throughputRatio float64
}

func TestReportRatios(t *testing.T) {
	if os.Getenv(perfEnv) != "1" {
		t.Skipf("set %s=1 to measure the host against the raw pipe", perfEnv)
	}
	t.Logf("GOMAXPROCS=%d, %d CPUs", runtime.GOMAXPROCS(0), runtime.NumCPU())
	results := measureInterleaved(t, chosenRigs(), defaultPlan())
	t.Log("\n" + ratioTable(results))
	side, peer := find(results, targetSide), find(results, goPluginSide)
	if side.latencyRatio > maxLatencyRatio {
		t.Errorf("%s: round trip %.2f× the pipe, target at most %.1f×", side.name, side.latencyRatio, maxLatencyRatio)
	}
	if side.throughputRatio < minThroughputRatio {
		t.Errorf("%s: batch throughput %.2f× the pipe, target at least %.1f×", side.name, side.throughputRatio, minThroughputRatio)
	}
	if f := peer.latencyRatio / side.latencyRatio; f < minPeerFactor {
		t.Errorf("%s: round trip %.1f× faster than %s, target at least %.0f×", side.name, f, peer.name, minPeerFactor)
	}
}

// find returns the result of the named side.
func find(results []sideResult, name string) sideResult {
	for _, r := range results {
		if r.name == name {
			return r
		}
	}
	return sideResult{name: name}
}

// samples holds one side's measures, one per round.
type samples struct {
	latencies []time.Duration
	rates     []float64
}

// measureInterleaved starts every side, warms each up, then takes
// plan.rounds samples of each measure, one side after the other, rotating
// which side goes first. specs[0] is the baseline.
func measureInterleaved(t *testing.T, specs []rigSpec, plan ratioPlan) []sideResult {
	sides := make([]rig, len(specs))
	for k, spec := range specs {
		sides[k] = spec.start(t)
		mustRun(t, spec.name, plan.warmup, sides[k].roundTrip)
		mustRun(t, spec.name, plan.warmup/batchSize+1, sides[k].batch)
	}
	all := make([]samples, len(specs))
	for round := range plan.rounds {
		for step := range specs {
			k := (round + step) % len(specs)
			took, n := sample(t, specs[k].name, plan.roundTrips, sides[k].roundTrip)
			all[k].latencies = append(all[k].latencies, took/time.Duration(n))
			took, n = sample(t, specs[k].name, plan.batches, sides[k].batch)
			all[k].rates = append(all[k].rates, float64(n*batchSize)/took.Seconds())
		}
	}
	results := make([]sideResult, len(specs))
	for k, spec := range specs {
		results[k] = summarize(spec.name, all[k], all[0])
	}
	return results
}

// summarize takes the medians of a side's samples and of its ratios to
// the raw pipe's samples of the same rounds.
func summarize(name string, side, raw samples) sideResult {
	latencyRatios := make([]float64, len(side.latencies))
	throughputRatios := make([]float64, len(side.rates))
	for i := range side.latencies {
		latencyRatios[i] = float64(side.latencies[i]) / float64(raw.latencies[i])
		throughputRatios[i] = side.rates[i] / raw.rates[i]
	}
	return sideResult{
		name:            name,
		latency:         median(side.latencies),
		throughput:      median(side.rates),
		latencyRatio:    median(latencyRatios),
		throughputRatio: median(throughputRatios),
	}
}

// mustRun runs op n times and returns how long they took together.
func mustRun(t *testing.T, side string, n int, op func() error) time.Duration {
	t.Helper()
	start := time.Now()
	for range n {
		if err := op(); err != nil {
			t.Fatalf("%s: %v", side, err)
		}
	}
	return time.Since(start)
}

// sample runs op up to n times, stopping early once sampleBudget has
// passed, and returns how long the runs took and how many there were.
func sample(t *testing.T, side string, n int, op func() error) (time.Duration, int) {
	t.Helper()
	start := time.Now()
	for done := 1; ; done++ {
		if err := op(); err != nil {
			t.Fatalf("%s: %v", side, err)
		}
		if took := time.Since(start); done == n || took > sampleBudget {
			return took, done
		}
	}
}

// median is the middle of the samples (the upper one of an even count).
func median[T time.Duration | float64](samples []T) T {
	sorted := slices.Clone(samples)
	slices.Sort(sorted)
	return sorted[len(sorted)/2]
}

// ratioTable is the results as a Markdown table, the baseline first, ready
// for docs/PERFORMANCE.md. Ratios are the medians of the rounds' ratios,
// so they may differ a little from the ratio of the medians shown.
func ratioTable(results []sideResult) string {
	var b strings.Builder
	b.WriteString("| side | round trip | × pipe | batch of 100, msgs/s | × pipe |\n")
	b.WriteString("|---|---:|---:|---:|---:|\n")
	for _, side := range results {
		fmt.Fprintf(&b, "| %s | %.1f µs | %.2f | %.0f | %.2f |\n",
			side.name, float64(side.latency)/float64(time.Microsecond), side.latencyRatio,
			side.throughput, side.throughputRatio)
	}
	return b.String()
}
