package host

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/google/go-cmp/cmp"
)

// docs/protocol.md#6-the-queue-crashes-and-re-attach: the fourth crash within five minutes stops the plugin and
// ends what waited with the stopped default; Restart starts it again with
// its crash history forgotten.
func TestReviewRestartForgetsTheCrashesThatStoppedIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, p, started, last := memHost(t, ready(func(context.Context, *memProgram, *jsonrpc.Message) (any, error) {
			return "ok", nil
		}), Options{})
		ctx := context.Background()
		for range 4 {
			if o := p.Call(ctx, "test/x", nil); o.IsDefault() {
				t.Fatalf("before crash: %+v", o)
			}
			last.Load().end(exited(1))
			synctest.Wait()
		}
		want := Status{State: StateStopped, Reason: "stopped after 4 crashes within 5 minutes", Crashes: 4}
		if diff := cmp.Diff(want, p.Status()); diff != "" {
			t.Fatalf("after 4 crashes (-want +got)\n%s", diff)
		}
		if o := p.Call(ctx, "test/x", nil); o.Default != Stopped || o.Reason != want.Reason {
			t.Errorf("call on a stopped plugin = %+v", o)
		}
		before := started.Load()
		if err := p.Restart(ctx); err != nil {
			t.Fatal(err)
		}
		if o := p.Call(ctx, "test/x", nil); o.IsDefault() {
			t.Errorf("after Restart: %+v", o)
		}
		if st := p.Status(); st.State != StateReady || st.Crashes != 0 || started.Load() != before+1 {
			t.Errorf("after Restart: %+v, %d starts", st, started.Load()-before)
		}
		h.Close(ctx)
	})
}
