package host

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/google/go-cmp/cmp"
)

// docs/protocol.md#5-calls-delays-and-the-default-answer: every call has its own delay; a permissions/… call inside
// a batch must not wait the 5 s of its neighbours.
func TestRegressBatchCallsKeepTheirOwnDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, p, _, _ := memHost(t, ready(nil), Options{})
		outs := p.Batch(context.Background(), []jsonrpc.BatchCall{
			{Method: "permissions/ask"}, {Method: "test/do"},
		})
		want := []Outcome{
			{Default: TimedOut, Reason: "permissions/ask: no answer within 500 ms"},
			{Default: TimedOut, Reason: "test/do: no answer within 5 s"},
		}
		if diff := cmp.Diff(want, outs); diff != "" {
			t.Errorf("(-want +got)\n%s", diff)
		}
		h.Close(context.Background())
	})
}
