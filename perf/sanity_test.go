package perf

import (
	"encoding/json"
	"testing"

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
