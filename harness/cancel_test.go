package harness

import (
	"strings"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/acp"
)

// TestReviewCancel plays the four answers to a cancel (docs/harness.md#the-session): honoured,
// end_turn and error -32800 are a cancelled turn; an agent that ignores it
// is stopped after the grace with a notice, and the session closes.
func TestReviewCancel(t *testing.T) {
	w := newWorld(t)
	r := start(t, fixtureScript("cancel.json"), Options{Cwd: w.dir, CancelGrace: 200 * time.Millisecond})
	r.untilType(acp.TypeSession)
	for range 4 {
		r.must(r.s.Prompt("p"))
		r.untilType(acp.TypeUser)
		r.must(r.s.Cancel())
		items := r.untilType(acp.TypeTurn)
		diff(t, "stop", acp.OutcomeCancelled, items[len(items)-1].StopReason)
	}
	items := r.untilType(acp.TypeClosed)
	if n := texts(items, acp.TypeNotice); len(n) != 1 || !strings.Contains(n[0], "ignored the cancel") {
		t.Errorf("notices: %q", n)
	}
}
