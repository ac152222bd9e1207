package wasm

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/escouade-dev/escouade-plugin/host/transport"
)

// Each shape answers calls over the wire and keeps its state between
// turns.
func TestShapesAnswerCalls(t *testing.T) {
	tr := newTransport(t, Options{})
	for _, name := range []string{"reactor", "command", "c-command"} {
		t.Run(name, func(t *testing.T) {
			m := pluginDir(t, fixture(t, name), nil)
			prog := launch(t, tr, transport.LaunchSpec{Manifest: m})
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
			if err := prog.Stop(ctx); err != nil {
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
	deadline := time.Now().Add(testDeadline)
	for {
		i.clock.mu.Lock()
		running := i.clock.running
		i.clock.mu.Unlock()
		if !running {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("its turn clock still runs while it waits for input")
		}
		time.Sleep(time.Millisecond)
	}
}
