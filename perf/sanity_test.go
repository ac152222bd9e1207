package perf

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/google/go-cmp/cmp"
)

// TestRigsEcho checks that every side answers what the benchmarks measure,
// so that a broken rig fails here and not as a fast benchmark.
func TestRigsEcho(t *testing.T) {
	for _, spec := range rigs() {
		t.Run(spec.name, func(t *testing.T) {
			t.Parallel()
			r := spec.start(t)
			if err := r.roundTrip(); err != nil {
				t.Errorf("round trip: %v", err)
			}
			if err := r.batch(); err != nil {
				t.Errorf("batch: %v", err)
			}
		})
	}
}

func TestEchoLine(t *testing.T) {
	want := `{"jsonrpc":"2.0","id":42,"method":"perf/echo","params":{"n":1}}` + "\n"
	if diff := cmp.Diff(want, string(echoLine(42))); diff != "" {
		t.Errorf("echoLine(42) (-want +got):\n%s", diff)
	}
}

func TestCheckEcho(t *testing.T) {
	sent := echoLine(1)
	tests := []struct {
		name string
		got  []byte
		ok   bool
	}{
		{"same line", echoLine(1), true},
		{"other id", echoLine(2), false},
		{"newline lost", sent[:len(sent)-1], false},
		{"empty", nil, false},
		{"extra byte", append(echoLine(1), 'x'), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := checkEcho(sent, tt.got); (err == nil) != tt.ok {
				t.Errorf("checkEcho(%q, %q) = %v, want ok %v", sent, tt.got, err, tt.ok)
			}
		})
	}
}

func TestCheckOutcome(t *testing.T) {
	params := json.RawMessage(echoParams)
	tests := []struct {
		name string
		o    host.Outcome
		ok   bool
	}{
		{"echo", host.Outcome{Result: json.RawMessage(`{"n":1}`)}, true},
		{"other result", host.Outcome{Result: json.RawMessage(`{"n":2}`)}, false},
		{"null result", host.Outcome{Result: json.RawMessage(`null`)}, false},
		{"no result", host.Outcome{}, false},
		{"error", host.Outcome{Error: jsonrpc.ErrMethodNotFound}, false},
		{"timed out", host.Outcome{Default: host.TimedOut, Reason: "perf/echo: no answer within 5 s"}, false},
		{"crashed", host.Outcome{Default: host.Crashed, Reason: "perf/echo: the plugin crashed"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := checkOutcome(tt.o, params); (err == nil) != tt.ok {
				t.Errorf("checkOutcome(%+v) = %v, want ok %v", tt.o, err, tt.ok)
			}
		})
	}
}

func TestMedian(t *testing.T) {
	tests := []struct {
		samples []float64
		want    float64
	}{
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 3},
		{[]float64{100, 1, 1, 1, 100}, 1},
	}
	for _, tt := range tests {
		if got := median(tt.samples); got != tt.want {
			t.Errorf("median(%v) = %v, want %v", tt.samples, got, tt.want)
		}
	}
}

func TestSummarize(t *testing.T) {
	us := time.Microsecond
	raw := samples{latencies: []time.Duration{10 * us, 20 * us, 10 * us}, rates: []float64{100, 50, 100}}
	tests := []struct {
		name string
		side samples
		want sideResult
	}{
		{
			name: "raw against itself",
			side: raw,
			want: sideResult{name: "raw against itself", latency: 10 * us, throughput: 100, latencyRatio: 1, throughputRatio: 1},
		},
		{
			// A slow round for every side is paired with the raw pipe's
			// slow round, so the ratio stays 2 and 0.5.
			name: "twice as slow",
			side: samples{latencies: []time.Duration{20 * us, 40 * us, 20 * us}, rates: []float64{50, 25, 50}},
			want: sideResult{name: "twice as slow", latency: 20 * us, throughput: 50, latencyRatio: 2, throughputRatio: 0.5},
		},
		{
			name: "one noisy round",
			side: samples{latencies: []time.Duration{15 * us, 200 * us, 15 * us}, rates: []float64{80, 5, 80}},
			want: sideResult{name: "one noisy round", latency: 15 * us, throughput: 80, latencyRatio: 1.5, throughputRatio: 0.8},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := summarize(tt.name, tt.side, raw)
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(sideResult{})); diff != "" {
				t.Errorf("summarize (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRatioTable(t *testing.T) {
	results := []sideResult{
		{name: "raw-pipe", latency: 10 * time.Microsecond, throughput: 600000, latencyRatio: 1, throughputRatio: 1},
		{name: "host", latency: 35500 * time.Nanosecond, throughput: 270000, latencyRatio: 3.55, throughputRatio: 0.45},
	}
	want := "| side | round trip | × pipe | batch of 100, msgs/s | × pipe |\n" +
		"|---|---:|---:|---:|---:|\n" +
		"| raw-pipe | 10.0 µs | 1.00 | 600000 | 1.00 |\n" +
		"| host | 35.5 µs | 3.55 | 270000 | 0.45 |\n"
	if diff := cmp.Diff(want, ratioTable(results)); diff != "" {
		t.Errorf("ratioTable (-want +got):\n%s", diff)
	}
}

func TestAnswerLine(t *testing.T) {
	tests := []struct {
		name, line, want string
	}{
		{"echo", `{"jsonrpc":"2.0","id":7,"method":"perf/echo","params":{"n":1}}`, `{"jsonrpc":"2.0","id":7,"result":{"n":1}}`},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"perf/echo","params":[1]},{"jsonrpc":"2.0","method":"perf/echo"}]`, `[{"jsonrpc":"2.0","id":1,"result":[1]}]`},
		{"notification only", `{"jsonrpc":"2.0","method":"perf/echo"}`, ``},
		{"unknown method", `{"jsonrpc":"2.0","id":"a","method":"perf/other"}`, `{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"Method not found"}}`},
		{"not JSON", `{`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := answerLine(jsonrpc.DecodeLine([]byte(tt.line)))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("answerLine(%s) (-want +got):\n%s", tt.line, diff)
			}
		})
	}
}

// FuzzAnswerLine holds the inline plugin to JSON-RPC: whatever line comes,
// its answer is nothing or one valid JSON value.
func FuzzAnswerLine(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"perf/echo","params":{"n":1}}`))
	f.Add([]byte(`[{"jsonrpc":"2.0","id":1,"method":"initialize"},{"jsonrpc":"2.0","id":2}]`))
	f.Add([]byte(`[]`))
	f.Add([]byte("\xff"))
	f.Fuzz(func(t *testing.T, line []byte) {
		got, err := answerLine(jsonrpc.DecodeLine(line))
		if err != nil {
			t.Fatalf("answerLine(%q): %v", line, err)
		}
		if got != nil && !json.Valid(got) {
			t.Errorf("answerLine(%q) = %q, not JSON", line, got)
		}
	})
}
