package wasm

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// callTree is a command whose _start is a tree of 2^depth calls with no
// loop and no recursion: function i calls function i+1 twice. Only a
// check at function entries stops it; one at loop back-edges alone never
// runs.
func callTree(depth int) []byte {
	funcs := make([]wasmFunc, depth+1)
	funcs[0].export = "_start"
	for i := range depth {
		next := uleb(uint32(i + 1))
		funcs[i].body = append(append(append([]byte{opCall}, next...), opCall), next...)
	}
	return encode(nil, funcs, 1)
}

// yieldsForever is a command that calls the host (WASI sched_yield) in a
// loop that never ends: the guest leaves compiled code at every turn of
// it, which a check that counts down and refills at each exit to the host
// would never see run out.
var yieldsForever = rawModule(
	section(secType, vec([]byte{funcType, 0, 0}, []byte{funcType, 0, 1, i32})),
	section(secImport, vec(append(append(name("wasi_snapshot_preview1"), name("sched_yield")...), kindFunc, 1))),
	section(secFunc, vec(uleb(0))),
	section(secMemory, vec([]byte{0, 1})),
	section(secExport, vec(append(name("_start"), kindFunc, 1), append(name("memory"), kindMemory, 0))),
	section(secCode, vec(sized([]byte{0, opLoop, blockEmpty, opCall, 0, opDrop, opBr, 0, opEnd, opEnd}))))

// Every shape a runaway turn can take ends at the turn limit, as the
// limit's exit: a loop, a loop-free call tree, a host call in a loop.
func TestRunawayShapesEndAtTheTurnLimit(t *testing.T) {
	tr := newTransport(t, Options{TurnLimit: 300 * time.Millisecond})
	want := transport.Exit{Kind: transport.TurnTooLong, Limit: 300 * time.Millisecond}
	for name, module := range map[string][]byte{
		"loop":              loopsInStart,
		"call tree":         callTree(48),
		"host call in loop": yieldsForever,
	} {
		t.Run(name, func(t *testing.T) {
			prog := launch(t, tr, specOf(pluginDir(t, module, nil)))
			got := ended(t, prog)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("exit (-want +got):\n%s", diff)
			}
			if s := host.CrashSentence(got); s != "a turn ran past 300 ms: Escouade stopped its instance" {
				t.Errorf("sentence %q", s)
			}
		})
	}
}
