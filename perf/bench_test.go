package perf

import "testing"

// BenchmarkRoundTrip is one call at a time: the latency a single call
// from the app pays.
func BenchmarkRoundTrip(b *testing.B) {
	for _, spec := range rigs() {
		b.Run(spec.name, func(b *testing.B) {
			r := spec.start(b)
			b.ReportAllocs()
			for b.Loop() {
				if err := r.roundTrip(); err != nil {
					b.Fatal(err)
				}
			}
			reportRate(b, 1)
		})
	}
}

// BenchmarkBatch100 is batchSize calls at a time: the throughput of
// calls sent together.
func BenchmarkBatch100(b *testing.B) {
	for _, spec := range rigs() {
		b.Run(spec.name, func(b *testing.B) {
			r := spec.start(b)
			b.ReportAllocs()
			for b.Loop() {
				if err := r.batch(); err != nil {
					b.Fatal(err)
				}
			}
			reportRate(b, batchSize)
		})
	}
}

// reportRate reports messages answered per second, perOp per iteration.
func reportRate(b *testing.B, perOp int) {
	if s := b.Elapsed().Seconds(); s > 0 {
		b.ReportMetric(float64(b.N*perOp)/s, "msgs/s")
	}
}
