package perf

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// perfEnv turns TestReportRatios on when set to "1": it takes seconds
// and its verdict depends on the machine, so it stays out of go test ./...
const perfEnv = "ESCOUADE_PERF"

// The targets the host is held to, against the raw pipe.
const (
	maxLatencyRatio    = 1.5 // host round trip / raw round trip, at most
	minThroughputRatio = 0.5 // host batch throughput / raw, at least
)

// ratioPlan is how TestReportRatios samples. Machines are noisy, so every
// round measures each side in turn and the medians of the rounds are
// compared.
type ratioPlan struct {
	rounds     int // samples per side and measure
	warmup     int // round trips and batches each side makes before the first round
	roundTrips int // calls per latency sample
	batches    int // batches per throughput sample
}

func defaultPlan() ratioPlan {
	return ratioPlan{rounds: 9, warmup: 200, roundTrips: 4000, batches: 150}
}

// sideResult is one side's medians.
type sideResult struct {
	name       string
	latency    time.Duration // per call, one at a time
	throughput float64       // messages per second, in batches
}

func TestReportRatios(t *testing.T) {
	if os.Getenv(perfEnv) != "1" {
		t.Skipf("set %s=1 to measure the host against the raw pipe", perfEnv)
	}
	results := measureInterleaved(t, rigs(), defaultPlan())
	t.Log("\n" + ratioTable(results))
	raw := results[0]
	for _, side := range results[1:] {
		if r := latencyRatio(side, raw); r > maxLatencyRatio {
			t.Errorf("%s: round trip %.2f× the raw pipe, target at most %.1f×", side.name, r, maxLatencyRatio)
		}
		if r := throughputRatio(side, raw); r < minThroughputRatio {
			t.Errorf("%s: batch throughput %.2f× the raw pipe, target at least %.1f×", side.name, r, minThroughputRatio)
		}
	}
}

// measureInterleaved starts every side, warms each up, then takes
// plan.rounds samples of each measure, one side after the other, rotating
// which side goes first.
func measureInterleaved(t *testing.T, specs []rigSpec, plan ratioPlan) []sideResult {
	sides := make([]rig, len(specs))
	for k, spec := range specs {
		sides[k] = spec.start(t)
		mustRun(t, spec.name, plan.warmup, sides[k].roundTrip)
		mustRun(t, spec.name, plan.warmup/10, sides[k].batch)
	}
	latencies := make([][]time.Duration, len(specs))
	rates := make([][]float64, len(specs))
	for round := range plan.rounds {
		for step := range specs {
			k := (round + step) % len(specs)
			perCall := mustRun(t, specs[k].name, plan.roundTrips, sides[k].roundTrip) / time.Duration(plan.roundTrips)
			latencies[k] = append(latencies[k], perCall)
			took := mustRun(t, specs[k].name, plan.batches, sides[k].batch)
			rates[k] = append(rates[k], float64(plan.batches*batchSize)/took.Seconds())
		}
	}
	results := make([]sideResult, len(specs))
	for k, spec := range specs {
		results[k] = sideResult{name: spec.name, latency: median(latencies[k]), throughput: median(rates[k])}
	}
	return results
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

// median is the middle of the samples (the upper one of an even count).
func median[T time.Duration | float64](samples []T) T {
	sorted := slices.Clone(samples)
	slices.Sort(sorted)
	return sorted[len(sorted)/2]
}

func latencyRatio(side, raw sideResult) float64 {
	return float64(side.latency) / float64(raw.latency)
}

func throughputRatio(side, raw sideResult) float64 {
	return side.throughput / raw.throughput
}

// ratioTable is the results as a Markdown table, the raw pipe first, ready
// for docs/PERFORMANCE.md.
func ratioTable(results []sideResult) string {
	var b strings.Builder
	b.WriteString("| side | round trip | × raw | batch of 100, msgs/s | × raw |\n")
	b.WriteString("|---|---:|---:|---:|---:|\n")
	raw := results[0]
	for _, side := range results {
		fmt.Fprintf(&b, "| %s | %.1f µs | %.2f | %.0f | %.2f |\n",
			side.name, float64(side.latency)/float64(time.Microsecond), latencyRatio(side, raw),
			side.throughput, throughputRatio(side, raw))
	}
	return b.String()
}
