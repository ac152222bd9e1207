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
	spec := transport.LaunchSpec{Dir: t.TempDir(), Kind: string(manifest.RunProcess), Command: []string{self}, Env: fakeEnvVars(t, mode)}
	prog, err := Transport{Grace: ignoredGrace}.Passing(fakeEnvNames...).Launch(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = prog.Stop(stoppedNow(), transport.StopOptions{})
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
	if want := fmt.Sprintf("pid %d", p.PID()); prog.ID() != want {
		t.Errorf("ID = %q, want %q", prog.ID(), want)
	}
	if sys, ok := prog.(interface{ PID() int }); !ok || sys.PID() != p.PID() {
		t.Errorf("the program does not give its pid %d beside its ID", p.PID())
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
		_ = prog.Stop(context.Background(), transport.StopOptions{AlreadyAsked: true})
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
		spec transport.LaunchSpec
	}{
		{"a module", context.Background(), transport.LaunchSpec{Dir: dir, Kind: string(manifest.RunWASM)}},
		{"a cancelled launch", cancelled, transport.LaunchSpec{Dir: dir, Kind: string(manifest.RunProcess), Command: []string{"./run"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Transport{}.Launch(tt.ctx, tt.spec)
			if err == nil {
				t.Fatal("Launch succeeded")
			}
		})
	}
}
