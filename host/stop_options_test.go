package host

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// The host says in Stop's options, not in a context, whether the program
// was already asked to end: a program it greeted was sent shutdown and had
// its delay, so its transport skips its own gentle step; a program that
// never answered initialize was asked nothing.
func TestStopSaysWhetherTheProgramWasAsked(t *testing.T) {
	answersAll := func(context.Context, *memProgram, *jsonrpc.Message) (any, error) { return nil, nil }
	silent := func(ctx context.Context, p *memProgram, m *jsonrpc.Message) (any, error) {
		<-p.quit
		return nil, nil
	}
	tests := []struct {
		name   string
		handle memHandler
		want   transport.StopOptions
	}{
		{"greeted", ready(answersAll), transport.StopOptions{AlreadyAsked: true}},
		{"never greeted", silent, transport.StopOptions{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h, p, _, last := memHost(t, tt.handle, Options{})
				ctx := context.Background()
				go p.Call(ctx, "test/x", nil)
				synctest.Wait()
				p.Disable(ctx)
				prog := last.Load()
				if prog == nil {
					t.Fatal("no program was launched")
				}
				if got := prog.firstStop.Load(); got == nil || *got != tt.want {
					t.Errorf("the first Stop's options = %+v, want %+v", got, tt.want)
				}
				h.Close(ctx)
			})
		})
	}
}
