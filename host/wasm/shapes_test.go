package wasm

import (
	"context"
	"testing"

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
