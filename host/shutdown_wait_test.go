package host

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
)

// deafToShutdown answers every call but shutdown, which it leaves
// unanswered; polite answers it too.
func deafToShutdown(polite bool) memHandler {
	return ready(func(ctx context.Context, p *memProgram, m *jsonrpc.Message) (any, error) {
		if m.Method == "shutdown" && !polite {
			<-p.quit
		}
		return json.RawMessage(`"ok"`), nil
	})
}

// timeoutLines are the journal's timeout lines about shutdown.
func timeoutLines(t *testing.T, p *Plugin) []string {
	t.Helper()
	lines, err := p.Journal().Tail(500)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, l := range lines {
		if _, rest, ok := strings.Cut(l, " "); ok && strings.HasPrefix(rest, "timeout shutdown") {
			found = append(found, rest)
		}
	}
	return found
}

// docs/protocol.md#5-calls-delays-and-the-default-answer: a shutdown left
// unanswered for its delay is journaled as every delay that runs out.
func TestUnansweredShutdownIsJournaled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, p, _, _ := memHost(t, deafToShutdown(false), Options{})
		call(t, p, "test/x", nil)
		start := time.Now()
		if err := p.Restart(context.Background()); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d < time.Second {
			t.Errorf("restart took %v, before the 1 s delay of shutdown", d)
		}
		synctest.Wait()
		want := "timeout shutdown: no answer within 1 s"
		if got := timeoutLines(t, p); len(got) != 1 || got[0] != want {
			t.Errorf("timeout lines = %q, want [%q]", got, want)
		}
		h.Close(context.Background())
	})
}

// Close's wait for all plugins together is the delay that runs out when it
// is the shorter one, and the line names it.
func TestUnansweredShutdownAtCloseNamesCloseWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, p, _, _ := memHost(t, deafToShutdown(false), Options{ShutdownWait: 300 * time.Millisecond})
		call(t, p, "test/x", nil)
		if err := h.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		want := "timeout shutdown: no answer within 300 ms"
		if got := timeoutLines(t, p); len(got) != 1 || got[0] != want {
			t.Errorf("timeout lines = %q, want [%q]", got, want)
		}
	})
}

func TestAnsweredShutdownWritesNoTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, p, _, _ := memHost(t, deafToShutdown(true), Options{})
		call(t, p, "test/x", nil)
		if err := p.Restart(context.Background()); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if got := timeoutLines(t, p); len(got) != 0 {
			t.Errorf("timeout lines = %q, want none", got)
		}
		h.Close(context.Background())
	})
}

// A caller's own context that ends first is the caller's business: the
// shutdown delay did not run out, and the journal says nothing of it.
func TestCallerContextEndingFirstWritesNoTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, p, _, _ := memHost(t, deafToShutdown(false), Options{})
		call(t, p, "test/x", nil)
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		p.Disable(ctx)
		synctest.Wait()
		if got := timeoutLines(t, p); len(got) != 0 {
			t.Errorf("timeout lines = %q, want none", got)
		}
		h.Close(context.Background())
	})
}
