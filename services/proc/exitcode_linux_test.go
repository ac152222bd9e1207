package proc

import (
	"testing"
	"time"
)

// TestSignalledProgramAnswersAsAShell: a program a signal ends answers
// 128 + the signal's number, as shells report it (process decodes
// it, as it does a plugin's program's end); one that exits answers its
// own code.
func TestSignalledProgramAnswersAsAShell(t *testing.T) {
	svc := shService(t, t.TempDir(), func(time.Duration, func()) Timer { return &timer{} })
	for script, want := range map[string]int64{
		"kill -TERM $$": 128 + 15,
		"kill -KILL $$": 128 + 9,
		"exit 3":        3,
	} {
		got, err := callSh(svc, script)
		if err != nil {
			t.Fatalf("%s: %v", script, err)
		}
		if got.Code != want {
			t.Errorf("%s: code %d, want %d", script, got.Code, want)
		}
	}
}
