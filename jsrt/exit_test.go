package jsrt

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/protocol"
	"github.com/escouade-dev/escouade-plugin/transport"
)

func TestExitOf(t *testing.T) {
	cases := []struct {
		name   string
		code   uint32
		stderr []string
		limit  time.Duration
		want   transport.Exit
	}{
		{"process.exit", 3, nil, 0, transport.Exit{Kind: transport.Exited, Code: 3}},
		{"crash", ExitCrash, []string{"Error: x", "    at f (file:///plugin/p.mjs:1:2)", CrashPrefix + "Error: x at f (file:///plugin/p.mjs:1:2)"}, 0,
			transport.Exit{Kind: transport.Trapped, Detail: "Error: x at f (file:///plugin/p.mjs:1:2)"}},
		{"crash line before others", ExitCrash, []string{CrashPrefix + "Error: y", "late line"}, 0, transport.Exit{Kind: transport.Trapped, Detail: "Error: y"}},
		{"crash without its line", ExitCrash, nil, 0, transport.Exit{Kind: transport.Trapped, Detail: "an uncaught exception"}},
		{"turn too long", ExitTurnTooLong, nil, 500 * time.Millisecond, transport.Exit{Kind: transport.TurnTooLong, Limit: 500 * time.Millisecond}},
		{"turn too long, no limit", ExitTurnTooLong, nil, 0, transport.Exit{Kind: transport.TurnTooLong, Limit: protocol.TurnLimit}},
		{"out of memory", ExitOutOfMemory, nil, 0, transport.Exit{Kind: transport.OutOfMemory, Memory: protocol.ModuleMemory}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, New().ExitOf(c.code, c.stderr, c.limit)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if got, want := host.CrashSentence(ExitOf(ExitOutOfMemory, nil, 0)), "its instance ran out of its 64 MB of memory"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

// FuzzExitOf: whatever the engine left on stderr, the crash's detail is one
// non-empty line.
func FuzzExitOf(f *testing.F) {
	f.Add(uint32(ExitCrash), "Error: x\n"+CrashPrefix+"Error: x at f (p.mjs:1:2)")
	f.Add(uint32(ExitCrash), CrashPrefix)
	f.Add(uint32(7), "")
	f.Fuzz(func(t *testing.T, code uint32, stderr string) {
		exit := ExitOf(code, strings.Split(stderr, "\n"), 0)
		if exit.Kind == transport.Trapped && (exit.Detail == "" || strings.Contains(exit.Detail, "\n")) {
			t.Errorf("detail %q", exit.Detail)
		}
	})
}
