package kit

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
)

func TestTimeoutGivesUpWhenTheHostTimerFires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		th := &timerHost{}
		p, _ := startTimerPlugin(t, th)
		canceled := make(chan struct{})
		result := make(chan error, 1)
		go func() {
			result <- p.Timeout(context.Background(), 250*time.Millisecond, func(ctx context.Context) error {
				<-ctx.Done() // an answer of the host that never comes
				close(canceled)
				return ctx.Err()
			})
		}()
		settled(t, "the timer of Timeout set on the host", func() bool { return p.hostTimerCount() == 1 })
		th.fire(t, 1)
		err := <-result
		if !errors.Is(err, ErrTimeout) {
			t.Fatalf("Timeout = %v, want ErrTimeout", err)
		}
		<-canceled // f's context ends with the timeout
		var wire *jsonrpc.Error
		if !errors.As(err, &wire) {
			t.Fatalf("Timeout's error %v carries no wire error", err)
		}
		got := map[string]any{"code": wire.Code, "message": err.Error(), "data": string(wire.Data)}
		want := map[string]any{"code": int64(-32603), "message": "no answer within 250 ms", "data": `{"reason":"timed out after 250 ms","timeoutMs":250}`}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("the timeout error (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{`timer/set {"ms":250}`}, th.Calls()); diff != "" {
			t.Errorf("calls to the host (-want +got):\n%s", diff)
		}
	})
}

func TestTimeoutReturnsWhatFReturnsAndClearsItsTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		th := &timerHost{}
		p, _ := startTimerPlugin(t, th)
		refused := jsonrpc.ErrForbidden.WithReason("example.org is not in permissions.network")
		err := p.Timeout(context.Background(), time.Hour, func(context.Context) error { return refused })
		if err != refused {
			t.Fatalf("Timeout = %v, want f's own error", err)
		}
		settled(t, "the first timer cleared", func() bool { return p.hostTimerCount() == 0 }) // its clear goes out in the background
		if err := p.Timeout(context.Background(), time.Hour, func(context.Context) error { return nil }); err != nil {
			t.Fatalf("Timeout = %v, want nil", err)
		}
		settled(t, "the second timer cleared", func() bool { return p.hostTimerCount() == 0 })
		want := []string{`timer/set {"ms":3600000}`, `timer/clear {"timer":1}`, `timer/set {"ms":3600000}`, `timer/clear {"timer":2}`}
		if diff := cmp.Diff(want, th.Calls()); diff != "" {
			t.Errorf("calls to the host (-want +got):\n%s", diff)
		}
	})
}

func TestTimeoutReportsTheHostsRefusalOfItsTimer(t *testing.T) {
	th := &timerHost{refuse: jsonrpc.ErrForbidden.WithReason("65 timers pending: at most 64 at once")}
	p, _ := startTimerPlugin(t, th)
	ran := false
	err := p.Timeout(context.Background(), time.Second, func(context.Context) error { ran = true; return nil })
	if !errors.Is(err, jsonrpc.ErrForbidden) || ran {
		t.Fatalf("Timeout = %v (f ran: %v), want -32003 and f not run", err, ran)
	}
}

func TestTimeoutInAProcessUsesGoTimers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, _ := quietPlugin() // a process: its own clock
		start := time.Now()
		err := p.Timeout(context.Background(), 2*time.Second, func(ctx context.Context) error {
			<-ctx.Done()
			return ctx.Err()
		})
		if !errors.Is(err, ErrTimeout) {
			t.Fatalf("Timeout = %v, want ErrTimeout", err)
		}
		if waited := time.Since(start); waited != 2*time.Second {
			t.Errorf("gave up after %v of the bubble's clock, want 2s", waited)
		}
		err = p.Timeout(context.Background(), 2*time.Second, func(context.Context) error {
			time.Sleep(time.Second)
			return nil
		})
		if err != nil {
			t.Fatalf("Timeout of a function done in 1 s of 2 = %v", err)
		}
	})
}
