package wasm

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/escouade-dev/escouade-plugin/transport"
)

// Each shape answers calls over the wire and keeps its state between
// turns.
func TestShapesAnswerCalls(t *testing.T) {
	tr := newTransport(t, Options{})
	for _, name := range []string{"reactor", "command", "c-command"} {
		t.Run(name, func(t *testing.T) {
			m := pluginDir(t, fixture(t, name), nil)
			prog := launch(t, tr, specOf(m))
			conn := connect(t, prog, nil)
			for range 3 {
				got := call[any](t, conn, "echo", map[string]any{"a": "b"})
				want := any(map[string]any{"a": "b"})
				if name == "c-command" {
					want = "c"
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("echo (-want +got):\n%s", diff)
				}
			}
			waitIdle(t, prog.(*instance))
			ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
			defer cancel()
			if err := prog.Stop(ctx, transport.StopOptions{}); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(transport.Exit{Kind: transport.Exited}, prog.Exit()); diff != "" {
				t.Errorf("exit (-want +got):\n%s", diff)
			}
		})
	}
}

// waitIdle waits until the instance waits for input, its turn clock
// stopped: a reactor between turns, a command blocked reading stdin.
func waitIdle(t *testing.T, i *instance) {
	t.Helper()
	i.clock.waitPaused()
}

// Calls made at once are all answered, each line reaching the module
// whole.
func TestConcurrentCalls(t *testing.T) {
	tr := newTransport(t, Options{})
	for _, name := range []string{"reactor", "command"} {
		t.Run(name, func(t *testing.T) {
			prog := launch(t, tr, specOf(pluginDir(t, fixture(t, name), nil)))
			conn := connect(t, prog, nil)
			var wg sync.WaitGroup
			for n := range 50 {
				wg.Go(func() {
					params := map[string]any{"n": float64(n), "pad": strings.Repeat("x", n*400)}
					res, err := conn.Call(t.Context(), "echo", params)
					var got any
					if err == nil {
						err = json.Unmarshal(res, &got)
					}
					if err != nil {
						t.Errorf("echo %d: %v", n, err)
					} else if diff := cmp.Diff(any(params), got); diff != "" {
						t.Errorf("echo %d (-want +got):\n%s", n, diff)
					}
				})
			}
			wg.Wait()
			if conn.Ended() {
				t.Errorf("connection ended: %v; exit %v; stderr %q", conn.Err(), ended(t, prog), prog.LastStderr())
			}
			select {
			case <-prog.Done():
				t.Errorf("it ended: %v; stderr %q", prog.Exit(), prog.LastStderr())
			default:
			}
		})
	}
}
