package host

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/registry"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// A Restart sent while the plugin restarts after a crash stops the
// instance then launching: that stop is the host's, and its end is never
// journaled as a crash (it was "crashed: exit code 0").
func TestRestartWhileRestartingIsNoCrash(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		handle := ready(func(context.Context, *memProgram, *jsonrpc.Message) (any, error) { return "ok", nil })
		var launches atomic.Int32
		var last atomic.Pointer[memProgram]
		gate := make(chan struct{}) // the second launch waits here
		launch := launchFunc(func(context.Context, transport.LaunchSpec) (transport.Program, error) {
			if launches.Add(1) == 2 {
				<-gate
			}
			prog := newMemProgram(handle)
			last.Store(prog)
			return prog, nil
		})
		h := New(Options{Home: t.TempDir(), Transports: memTransports(launch)})
		p, err := h.Add(&manifest.Manifest{ID: "dev.test.mem", Version: "1.0.0", Run: &manifest.Run{WASM: "x"},
			Activation: []string{"onCall"}, Dir: t.TempDir()}, Config{Admit: registry.AnyFolder})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if o := p.Call(ctx, "test/x", nil); o.IsDefault() {
			t.Fatalf("first call: %+v", o)
		}
		last.Load().end(exited(1)) // a crash: the second launch begins and waits
		synctest.Wait()
		if st := p.Status(); st.State != StateRestarting {
			t.Fatalf("after the crash: %+v, want restarting", st)
		}
		restarted := make(chan error, 1)
		go func() { restarted <- p.Restart(ctx) }()
		synctest.Wait()
		close(gate)
		if err := <-restarted; err != nil {
			t.Fatal(err)
		}
		if o := p.Call(ctx, "test/x", nil); o.IsDefault() {
			t.Fatalf("after Restart: %+v", o)
		}
		lines, _ := p.Journal().Tail(100)
		var crashes []string
		for _, l := range lines {
			if strings.Contains(l, " crash ") {
				crashes = append(crashes, l)
			}
		}
		if len(crashes) != 1 || !strings.Contains(crashes[0], "exit code 1") {
			t.Errorf("crash lines = %q, want only the one crash (exit code 1)", crashes)
		}
		if st := p.Status(); st.State != StateReady || st.Crashes != 0 {
			t.Errorf("after Restart: %+v, want ready with no crash counted", st)
		}
		h.Close(ctx)
	})
}

// Admit is asked before every start: a refusal stops the plugin with its
// sentence, journaled, and no program is launched.
func TestAdmitRefusalStopsBeforeLaunch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var launches atomic.Int32
		launch := launchFunc(func(context.Context, transport.LaunchSpec) (transport.Program, error) {
			launches.Add(1)
			return newMemProgram(ready(nil)), nil
		})
		h := New(Options{Home: t.TempDir(), Transports: memTransports(launch)})
		refusal := errors.New("not started: the folder changed since it was installed")
		p, err := h.Add(&manifest.Manifest{ID: "dev.test.mem", Version: "1.0.0", Run: &manifest.Run{WASM: "x"},
			Activation: []string{"onCall"}, Dir: t.TempDir()}, Config{Admit: func(*manifest.Manifest) error { return refusal }})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if o := p.Call(ctx, "test/x", nil); o.Default != Stopped || o.Reason != refusal.Error() {
			t.Errorf("call = %+v, want stopped with the refusal", o)
		}
		if err := p.Restart(ctx); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if st := p.Status(); st.State != StateStopped || st.Reason != refusal.Error() {
			t.Errorf("after Restart: %+v", st)
		}
		if n := launches.Load(); n != 0 {
			t.Errorf("%d launches, want none", n)
		}
		journalHas(t, p, "stop", refusal.Error())
		h.Close(ctx)
	})
}
