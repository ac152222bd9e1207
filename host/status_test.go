package host

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// systemMemProgram is a memProgram that says the number the system knows
// it by, as the process transport's programs do.
type systemMemProgram struct{ *memProgram }

func (systemMemProgram) PID() int { return 4242 }

// The status names the program by its ID, and gives the app the system's
// number only of a program that has one (the optional PID() int): a
// program inside the host has 0.
func TestStatusReadsThePIDOnlyOfProgramsThatHaveOne(t *testing.T) {
	answersAll := ready(func(context.Context, *memProgram, *jsonrpc.Message) (any, error) { return nil, nil })
	tests := []struct {
		name string
		wrap func(*memProgram) transport.Program
		pid  int
	}{
		{"inside the host", func(p *memProgram) transport.Program { return p }, 0},
		{"run by the system", func(p *memProgram) transport.Program { return systemMemProgram{p} }, 4242},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var launched atomic.Bool
				launch := launchFunc(func(context.Context, transport.LaunchSpec) (transport.Program, error) {
					launched.Store(true)
					return tt.wrap(newMemProgram(answersAll)), nil
				})
				h := New(Options{Home: t.TempDir(), Transports: memTransports(launch)})
				defer h.Close(context.Background())
				m := &manifest.Manifest{ID: "dev.test.mem", Version: "1.0.0", Run: &manifest.Run{WASM: "x"},
					Activation: []string{"onCall"}, Dir: t.TempDir()}
				p, err := h.Add(m, folderConfig(m))
				if err != nil {
					t.Fatal(err)
				}
				p.Call(context.Background(), "test/x", nil)
				st := p.Status()
				if !launched.Load() || st.State != StateReady || st.Program != "instance" || st.PID != tt.pid {
					t.Errorf("status = %+v, want ready, program %q, pid %d", st, "instance", tt.pid)
				}
			})
		})
	}
}
