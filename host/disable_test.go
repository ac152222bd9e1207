package host

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/google/go-cmp/cmp"
)

// docs/protocol.md#9-stopping-closing-and-user-changes, docs/CLI.md: a disabled plugin answers the stopped default with
// reason "disabled", refuses Restart, and Enable brings it back to idle.
func TestReviewDisableEnableStates(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, p, _, _ := memHost(t, ready(func(context.Context, *memProgram, *jsonrpc.Message) (any, error) {
			return "ok", nil
		}), Options{})
		ctx := context.Background()
		p.Call(ctx, "test/x", nil)
		p.Disable(ctx)
		if diff := cmp.Diff(Outcome{Default: Stopped, Reason: "disabled"}, p.Call(ctx, "test/x", nil)); diff != "" {
			t.Errorf("call while disabled (-want +got)\n%s", diff)
		}
		if err := p.Restart(ctx); err != ErrDisabled {
			t.Errorf("Restart while disabled = %v", err)
		}
		p.Enable()
		if st := p.Status(); st.State != StateIdle {
			t.Errorf("after Enable: %+v", st)
		}
		h.Close(ctx)
	})
}
