package protocol

import (
	"testing"
	"time"
)

func TestFormatDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0 ms"},
		{time.Millisecond, "1 ms"},
		{300 * time.Millisecond, "300 ms"},
		{500 * time.Millisecond, "500 ms"},
		{999 * time.Millisecond, "999 ms"},
		{1500 * time.Millisecond, "1500 ms"},
		{2000 * time.Millisecond, "2 s"},
		{time.Second, "1 s"},
		{5 * time.Second, "5 s"},
		{10 * time.Second, "10 s"},
		{59 * time.Second, "59 s"},
		{90 * time.Second, "90 s"},
		{time.Minute, "1 min"},
		{5 * time.Minute, "5 min"},
		{time.Hour, "60 min"},
		{500 * time.Microsecond, "0.5 ms"},
		{1500 * time.Microsecond, "1.5 ms"},
		{time.Nanosecond, "0.000001 ms"},
		{-300 * time.Millisecond, "-300 ms"},
		{-5 * time.Second, "-5 s"},
		{-1500 * time.Microsecond, "-1.5 ms"},
	}
	for _, tt := range tests {
		if got := FormatDuration(tt.d); got != tt.want {
			t.Errorf("FormatDuration(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

// TestFormatDurationOfTheDelayTable checks the texts the journal writes for
// every delay of the schema, e.g. "test/do: no answer within 5 s".
func TestFormatDurationOfTheDelayTable(t *testing.T) {
	tests := map[string]string{
		"initialize":      "10 s",
		"shutdown":        "1 s",
		"permissions/ask": "500 ms",
		"tickets/import":  "1 min",
		"test/do":         "5 s",
	}
	for method, want := range tests {
		if got := FormatDuration(Delay(method)); got != want {
			t.Errorf("FormatDuration(Delay(%q)) = %q, want %q", method, got, want)
		}
	}
}
