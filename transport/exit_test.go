package transport

import (
	"errors"
	"testing"
	"time"
)

// An Exit's error text is the seam's plain words, with no host's wording
// in it; errors.Is tells its kind.
func TestExitError(t *testing.T) {
	tests := []struct {
		exit Exit
		text string
		is   error
	}{
		{Exit{Kind: Exited, Code: 3}, "exit code 3", ErrExited},
		{Exit{Kind: Ended, By: ByHostForced}, "ended (host forced)", ErrEnded},
		{Exit{Kind: Ended, By: ByHostAsked, Detail: "its own words"}, "ended (host asked): its own words", ErrEnded},
		{Exit{Kind: Ended}, "ended (other)", ErrEnded},
		{Exit{Kind: Trapped, Detail: "unreachable"}, "trap: unreachable", ErrTrapped},
		{Exit{Kind: TurnTooLong, Limit: 2 * time.Second}, "turn past 2000 ms", ErrTurnTooLong},
		{Exit{Kind: OutOfMemory, Memory: 64 << 20}, "out of 64 MB of memory", ErrOutOfMemory},
		{Exit{}, "running", nil},
	}
	sentinels := []error{ErrExited, ErrEnded, ErrTrapped, ErrTurnTooLong, ErrOutOfMemory}
	for _, tt := range tests {
		if got := tt.exit.Error(); got != tt.text {
			t.Errorf("%#v.Error() = %q, want %q", tt.exit, got, tt.text)
		}
		for _, s := range sentinels {
			if got := errors.Is(tt.exit, s); got != (s == tt.is) {
				t.Errorf("errors.Is(%#v, %v) = %v", tt.exit, s, got)
			}
		}
	}
}
