package host

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// A module's turn is shorter while it holds a decision: the host hands
// each program it launched, through Options.Decisions, a way to ask
// whether a permissions/… call is pending on it.
func TestHoldsDecisionWhileAPermissionsCallIsPending(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		handle := ready(func(ctx context.Context, p *memProgram, m *jsonrpc.Message) (any, error) {
			if m.Method == "permissions/ask" {
				<-release
			}
			return "ok", nil
		})
		var holds atomic.Pointer[func() bool]
		var launched atomic.Pointer[memProgram]
		launch := launchFunc(func(_ context.Context, spec transport.LaunchSpec) (transport.Program, error) {
			prog := newMemProgram(handle)
			launched.Store(prog)
			return prog, nil
		})
		decisions := func(prog transport.Program, held func() bool) {
			if prog == transport.Program(launched.Load()) {
				holds.Store(&held)
			}
		}
		h := New(Options{Home: t.TempDir(), Transports: memTransports(launch), Decisions: decisions})
		defer h.Close(context.Background())
		m := &manifest.Manifest{ID: "dev.test.mem", Version: "1.0.0", Run: &manifest.Run{WASM: "x"},
			Activation: []string{"onCall"}, Dir: t.TempDir()}
		p, err := h.Add(m, folderConfig(m))
		if err != nil {
			t.Fatal(err)
		}
		if o := p.Call(context.Background(), "test/warm", nil); o.IsDefault() {
			t.Fatalf("warm-up call: %+v", o)
		}
		held := *holds.Load()
		if held() {
			t.Fatal("holds a decision before any permissions call")
		}
		ask := p.Go("permissions/ask", nil)
		synctest.Wait()
		if !held() {
			t.Error("no decision held while permissions/ask is pending")
		}
		close(release)
		ask.Wait(context.Background())
		if held() {
			t.Error("a decision still held once permissions/ask was answered")
		}

		// A call whose outcome nobody takes is held for its delay (500 ms),
		// never longer.
		p.Go("permissions/other", nil)
		synctest.Wait()
		if !held() {
			t.Error("no decision held for a permissions call nobody waits for")
		}
		time.Sleep(500 * time.Millisecond)
		synctest.Wait()
		if held() {
			t.Error("a decision still held past the call's delay")
		}
	})
}
