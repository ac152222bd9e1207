package wasm

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// send writes a request without waiting for an answer that may never
// come.
func send(t *testing.T, conn *jsonrpc.Conn, method string) {
	t.Helper()
	conn.Go(t.Context(), method, nil)
}

// Each limit ends its instance with its typed Exit and the journal's
// sentence (docs/protocol.md#limits).
func TestLimitsEndTheInstance(t *testing.T) {
	// Loops get short limits; the others a long one, so a slow machine
	// (the race detector slows the copies of a growing memory) does not
	// turn a memory bomb into a long turn.
	short := newTransport(t, Options{TurnLimit: 300 * time.Millisecond, DecisionTurnLimit: 200 * time.Millisecond})
	long := newTransport(t, Options{TurnLimit: testDeadline})
	tests := []struct {
		module, method string
		decision       bool
		want           transport.Exit
		sentence       string
	}{
		{"reactor", "loop", false, transport.Exit{Kind: transport.TurnTooLong, Limit: 300 * time.Millisecond}, "a turn ran past 300 ms: Escouade stopped its instance"},
		{"command", "loop", false, transport.Exit{Kind: transport.TurnTooLong, Limit: 300 * time.Millisecond}, "a turn ran past 300 ms: Escouade stopped its instance"},
		{"reactor", "loop", true, transport.Exit{Kind: transport.TurnTooLong, Limit: 200 * time.Millisecond}, "a turn ran past 200 ms: Escouade stopped its instance"},
		{"reactor", "grow", false, transport.Exit{Kind: transport.OutOfMemory, Memory: 64 << 20}, "its instance ran out of its 64 MB of memory"},
		{"command", "grow", false, transport.Exit{Kind: transport.OutOfMemory, Memory: 64 << 20}, "its instance ran out of its 64 MB of memory"},
		{"reactor", "panic", false, transport.Exit{Kind: transport.Trapped, Detail: "panic: boom"}, "its instance crashed: panic: boom"},
		{"command", "panic", false, transport.Exit{Kind: transport.Trapped, Detail: "panic: boom"}, "its instance crashed: panic: boom"},
		{"c-command", "trap", false, transport.Exit{Kind: transport.Trapped, Detail: "wasm error: unreachable"}, "its instance crashed: wasm error: unreachable"},
		{"command", "exit", false, transport.Exit{Kind: transport.Exited, Code: 3}, "crashed: exit code 3"},
		{"c-command", "exit", false, transport.Exit{Kind: transport.Exited, Code: 3}, "crashed: exit code 3"},
	}
	for _, tt := range tests {
		t.Run(tt.module+"/"+tt.method, func(t *testing.T) {
			spec := specOf(pluginDir(t, fixture(t, tt.module), nil))
			tr := long
			if tt.method == "loop" {
				tr = short
			}
			prog := launch(t, tr, spec)
			tr.Decisions(prog, func() bool { return tt.decision })
			send(t, connect(t, prog, nil), tt.method)
			got := ended(t, prog)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("exit (-want +got):\n%s", diff)
			}
			if host.CrashSentence(got) != tt.sentence {
				t.Errorf("sentence %q, want %q", host.CrashSentence(got), tt.sentence)
			}
		})
	}
}

// Modules no compiler made: a trap in a reactor's turn, a loop that calls
// nothing, a proc_exit.
func TestHandMadeModules(t *testing.T) {
	tr := newTransport(t, Options{TurnLimit: 300 * time.Millisecond})
	tests := []struct {
		name   string
		module []byte
		want   transport.Exit
	}{
		{"trap", trapsInTurn, transport.Exit{Kind: transport.Trapped, Detail: "wasm error: unreachable"}},
		{"loop", loopsInStart, transport.Exit{Kind: transport.TurnTooLong, Limit: 300 * time.Millisecond}},
		{"exit", exitsWith7, transport.Exit{Kind: transport.Exited, Code: 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prog := launch(t, tr, specOf(pluginDir(t, tt.module, nil)))
			_, _ = prog.Stdin().Write([]byte("{}\n")) // a command may have ended already
			if diff := cmp.Diff(tt.want, ended(t, prog)); diff != "" {
				t.Errorf("exit (-want +got):\n%s", diff)
			}
		})
	}
}

// The default limit's sentence, with a real 2 s turn.
func TestDefaultTurnLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a 2 s turn")
	}
	tr := newTransport(t, Options{})
	prog := launch(t, tr, specOf(pluginDir(t, loopsInStart, nil)))
	if got, want := host.CrashSentence(ended(t, prog)), "a turn ran past 2000 ms: Escouade stopped its instance"; got != want {
		t.Errorf("sentence %q, want %q", got, want)
	}
}

// A module that cannot run is refused at launch, saying why.
func TestModulesRefused(t *testing.T) {
	tr := newTransport(t, Options{})
	tests := []struct {
		name   string
		module []byte
		files  map[string]string
		want   string
	}{
		{"forbidden import", importsEnvFoo, nil, "its module imports env.foo, which Escouade does not provide"},
		{"no entry", noEntry, nil, "its module exports neither escouade-turn (a reactor) nor _start (a command)"},
		{"huge memory", hugeMemory, nil, "its module needs 128 MB of memory at start, past its limit of 64 MB"},
		// Not exported: the pre-pass over the sections sees it all the same.
		{"hidden huge memory", hiddenHugeMemory, nil, "its module needs 128 MB of memory at start, past its limit of 64 MB"},
		{"bad budget", badBudget, nil, "its module exports escouade-budget as () -> (); Escouade calls it as (i32) -> ()"},
		{"not wasm", []byte("hello"), nil, "plugin.wasm is not a WebAssembly file: it is text"},
		{"version mismatch", exitsWith7, map[string]string{VersionFile: `{"sha256": "` + strings.Repeat("ab", 32) + `"}`},
			"plugin.wasm does not match version.json: its SHA-256 is " + digest(exitsWith7) + ", version.json says " + strings.Repeat("ab", 32)},
		{"version unreadable", exitsWith7, map[string]string{VersionFile: `"x"`}, `version.json does not hold {"sha256": "<hex>"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := pluginDir(t, tt.module, tt.files)
			_, err := tr.Launch(t.Context(), specOf(m))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("Launch error %v, want %q", err, tt.want)
			}
			if tt.module == nil {
				return
			}
			if err := tr.Precompile(t.Context(), m, nil); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("Precompile error %v, want %q", err, tt.want)
			}
		})
	}
}

// A version.json that matches lets the module run.
func TestVersionFileMatches(t *testing.T) {
	tr := newTransport(t, Options{})
	m := pluginDir(t, exitsWith7, map[string]string{VersionFile: `{"sha256": "` + strings.ToUpper(digest(exitsWith7)) + `"}`})
	prog := launch(t, tr, specOf(m))
	if got := ended(t, prog); got.Code != 7 {
		t.Fatalf("exit %v, want code 7", got)
	}
}

// A reactor's start (its _initialize; the JS engine's first turn, run
// before any input, where it starts its runtime and the bundle's top
// level) is timed by StartLimit, not by the turn limit: on a loaded
// machine the engine's start ran past the 2 s of a turn. A start that does
// not end is still ended, by the start's limit; later turns keep theirs.
func TestStartHasItsOwnLimit(t *testing.T) {
	tr := newTransport(t, Options{TurnLimit: 50 * time.Millisecond, StartLimit: 400 * time.Millisecond,
		JS: fakeEngine{module: loopsInTurn}})
	tests := []struct {
		name string
		m    *manifest.Manifest
		want transport.Exit
	}{
		{"_initialize", pluginDir(t, loopsInInitialize, nil), transport.Exit{Kind: transport.TurnTooLong, Limit: 400 * time.Millisecond}},
		{"the JS engine's first turn", jsManifest(t), transport.Exit{Kind: transport.TurnTooLong, Limit: 400 * time.Millisecond}},
		{"a later turn", pluginDir(t, loopsInTurn, nil), transport.Exit{Kind: transport.TurnTooLong, Limit: 50 * time.Millisecond}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prog := launch(t, tr, specOf(tt.m))
			_, _ = prog.Stdin().Write([]byte("{}\n")) // the turn of a module that started
			if diff := cmp.Diff(tt.want, ended(t, prog)); diff != "" {
				t.Errorf("exit (-want +got):\n%s", diff)
			}
		})
	}
}
