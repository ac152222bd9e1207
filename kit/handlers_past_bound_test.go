package kit

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/vocab"
)

// barrier opens once n have arrived; an arrival past n finds it open.
type barrier struct {
	left atomic.Int64
	open chan struct{}
}

func newBarrier(n int) *barrier {
	b := &barrier{open: make(chan struct{})}
	b.left.Store(int64(n))
	return b
}

// arrive counts one arrival and waits until the barrier is open.
func (b *barrier) arrive() {
	if b.left.Add(-1) == 0 {
		close(b.open)
	}
	<-b.open
}

// The kit runs with the default bounds: 64 of the host's requests served
// at once. With more than that waiting, each handler itself waiting for an
// answer of the host (secrets/get), the connection must still read those
// answers, or every handler waits for ever: the answers to the kit's own
// calls are read past the bound on the host's requests.
func TestHandlersWaitingForTheHostPastTheBound(t *testing.T) {
	const calls = 2 * jsonrpc.DefaultMaxRequests
	p, _ := quietPlugin()
	p.Handle("t/secret", func(ctx context.Context, _ json.RawMessage) (any, error) {
		v, _, err := p.Secret(ctx, "token")
		return v, err
	})
	// The host answers no secrets/get before 64 wait for it: every slot of
	// the kit is then held by a handler waiting for the host.
	asked := newBarrier(jsonrpc.DefaultMaxRequests)
	var once sync.Map
	h := startPlugin(t, p, func(m *jsonrpc.Message) (any, error) {
		if m.Method != vocab.MethodSecretsGet {
			return nil, jsonrpc.ErrMethodNotFound
		}
		if _, seen := once.LoadOrStore(m.ID.String(), true); !seen {
			asked.arrive()
		}
		return "v", nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	pending := make([]*jsonrpc.AsyncCall, calls)
	for k := range pending {
		pending[k] = h.conn.Go(ctx, "t/secret", nil)
	}
	for k, call := range pending {
		res, err := call.Wait()
		if errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("call %d of %d: no answer within %s: the handlers wait for answers the connection no longer reads", k, calls, testTimeout)
		}
		if err != nil || string(res) != `"v"` {
			t.Errorf("call %d: %s, %v; want \"v\"", k, res, err)
		}
	}
}
