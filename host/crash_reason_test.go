package host

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// Every call of a turn that ran past its limit is answered "crashed" with
// the reason naming the mechanism that ended the instance, not only "the
// plugin crashed"; an ordinary exit keeps the short reason.
func TestACrashAnswerNamesTheMechanismThatEndedTheInstance(t *testing.T) {
	tests := []struct {
		name string
		exit transport.Exit
		want string
	}{
		{"turn limit", transport.Exit{Kind: transport.TurnTooLong, Limit: 2 * time.Second},
			"test/spin: the plugin crashed: its turn ran past its limit of 2 s, and Escouade stopped its instance"},
		{"memory", transport.Exit{Kind: transport.OutOfMemory, Memory: 64 << 20},
			"test/spin: the plugin crashed: its instance ran out of its 64 MB of memory"},
		{"exit", exited(3), "test/spin: the plugin crashed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var once sync.Once
				ends := ready(func(ctx context.Context, p *memProgram, m *jsonrpc.Message) (any, error) {
					// The second call of the turn ends the instance; the first is
					// still waiting for its answer then.
					if m.Method == "test/end" {
						once.Do(func() { go p.end(tt.exit) })
					}
					<-p.quit
					return nil, nil
				})
				h, p, _, _ := memHost(t, ends, Options{})
				outs := p.Batch(context.Background(), []jsonrpc.BatchCall{{Method: "test/spin"}, {Method: "test/end"}})
				if outs[0].Default != Crashed || outs[0].Reason != tt.want {
					t.Errorf("first call = %+v, want crashed with %q", outs[0], tt.want)
				}
				if want := strings.Replace(tt.want, "test/spin", "test/end", 1); outs[1].Reason != want {
					t.Errorf("second call reason %q, want %q", outs[1].Reason, want)
				}
				h.Close(context.Background())
			})
		})
	}
}
