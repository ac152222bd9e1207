package host

import (
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/transport"
)

// The host says how a program ended; the seam only says what ended it.
// Every sentence of the crash entry, and the short form the bench's
// report says, from each kind of Exit a transport gives (the process
// transport's signals keep their name as the Detail).
func TestCrashSentences(t *testing.T) {
	tests := []struct {
		exit           transport.Exit
		text, sentence string
	}{
		{transport.Exit{Kind: transport.Exited, Code: 3}, "exit code 3", "crashed: exit code 3"},
		{transport.Exit{Kind: transport.Exited}, "exit code 0", "crashed: exit code 0"},
		{transport.Exit{Kind: transport.Ended, By: transport.ByHostForced, Detail: "signal killed"}, "signal killed", "crashed: signal killed"},
		{transport.Exit{Kind: transport.Ended, By: transport.ByHostAsked, Detail: "signal terminated"}, "signal terminated", "crashed: signal terminated"},
		{transport.Exit{Kind: transport.Ended, By: transport.ByOther, Detail: "signal killed"}, "signal killed", "crashed: signal killed"},
		{transport.Exit{Kind: transport.Ended, By: transport.ByOther, Detail: "signal segmentation fault"}, "signal segmentation fault", "crashed: signal segmentation fault"},
		{transport.Exit{Kind: transport.Ended, By: transport.ByHostForced}, "stopped by Escouade", "crashed: stopped by Escouade"},
		{transport.Exit{Kind: transport.Ended, By: transport.ByHostAsked}, "ended as Escouade asked", "crashed: ended as Escouade asked"},
		{transport.Exit{Kind: transport.Ended}, "ended from outside", "crashed: ended from outside"},
		{transport.Exit{Kind: transport.Trapped, Detail: "stack overflow"}, "trap: stack overflow", "its instance crashed: stack overflow"},
		{transport.Exit{Kind: transport.TurnTooLong, Limit: 2 * time.Second}, "turn past 2000 ms", "a turn ran past 2000 ms: Escouade stopped its instance"},
		{transport.Exit{Kind: transport.OutOfMemory, Memory: 64 << 20}, "out of 64 MB of memory", "its instance ran out of its 64 MB of memory"},
		{transport.Exit{}, "running", "crashed"},
	}
	for _, tt := range tests {
		if got := ExitText(tt.exit); got != tt.text {
			t.Errorf("ExitText(%#v) = %q, want %q", tt.exit, got, tt.text)
		}
		if got := CrashSentence(tt.exit); got != tt.sentence {
			t.Errorf("CrashSentence(%#v) = %q, want %q", tt.exit, got, tt.sentence)
		}
	}
}
