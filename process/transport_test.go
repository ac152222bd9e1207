package process

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/transport"
	"github.com/google/go-cmp/cmp"
)

// launch starts the fake mode through the seam, as the host does.
func launch(t *testing.T, ctx context.Context, mode string) transport.Program {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	m := &manifest.Manifest{Dir: t.TempDir(), Run: &manifest.Run{Command: []string{self}}}
	prog, err := Transport{Grace: ignoredGrace}.Passing(fakeEnvNames...).Launch(ctx, transport.LaunchSpec{Manifest: m, Env: fakeEnvVars(t, mode)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = prog.Stop(stoppedNow())
		_ = prog.Stdout().Close()
	})
	return prog
}

func TestTransportProgram(t *testing.T) {
	prog := launch(t, context.Background(), "ignore-term")
	p := prog.(*program).Process
	if got := nextLine(t, stdoutLines(t, p)); got != "ready" {
		t.Fatalf("program said %q, want ready", got)
	}
	if want := (transport.ID{Name: fmt.Sprintf("pid %d", p.PID()), System: p.PID()}); prog.ID() != want {
		t.Errorf("ID = %+v, want %+v", prog.ID(), want)
	}
	if got := prog.Exit(); got != (transport.Exit{}) {
		t.Errorf("Exit while it runs = %v, want Running", got)
	}
	if used, err := prog.(transport.MemoryReader).Memory(); err != nil || used == 0 {
		t.Errorf("Memory = %d, %v; want its resident bytes", used, err)
	}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		_ = prog.Stop(transport.Asked(context.Background()))
	}()
	waitClosed(t, stopped, "Stop after shutdown")
	want := transport.Exit{Kind: transport.Ended, By: transport.ByHostForced, Detail: "signal killed"}
	if diff := cmp.Diff(want, prog.Exit()); diff != "" {
		t.Errorf("Exit (-want +got):\n%s", diff)
	}
}

func TestTransportCancelEndsTheProgram(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	prog := launch(t, ctx, "ignore-term")
	if got := nextLine(t, stdoutLines(t, prog.(*program).Process)); got != "ready" {
		t.Fatalf("program said %q, want ready", got)
	}
	cancel()
	waitClosed(t, prog.Done(), "the end of a program whose life was cancelled")
	if want := (transport.Exit{Kind: transport.Ended, By: transport.ByHostForced, Detail: "signal killed"}); prog.Exit() != want {
		t.Errorf("Exit = %v, want %v", prog.Exit(), want)
	}
}

func TestTransportRefuses(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	tests := []struct {
		name string
		ctx  context.Context
		run  *manifest.Run
	}{
		{"a module", context.Background(), &manifest.Run{WASM: "plugin.wasm"}},
		{"a cancelled launch", cancelled, &manifest.Run{Command: []string{"./run"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Transport{}.Launch(tt.ctx, transport.LaunchSpec{Manifest: &manifest.Manifest{Dir: dir, Run: tt.run}})
			if err == nil {
				t.Fatal("Launch succeeded")
			}
		})
	}
}
