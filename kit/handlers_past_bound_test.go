package kit

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/vocab"
)

// countDown counts one arrival, until the group is done; it reports
// whether this one was counted.
func countDown(wg *sync.WaitGroup) (counted bool) {
	defer func() { counted = recover() == nil }()
	wg.Done() // past zero it panics: the barrier is already open
	return true
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
	var asked sync.WaitGroup
	asked.Add(jsonrpc.DefaultMaxRequests)
	var once sync.Map
	h := startPlugin(t, p, func(m *jsonrpc.Message) (any, error) {
		if m.Method != vocab.MethodSecretsGet {
			return nil, jsonrpc.ErrMethodNotFound
		}
		if _, seen := once.LoadOrStore(m.ID.String(), true); !seen && countDown(&asked) {
			asked.Wait()
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
