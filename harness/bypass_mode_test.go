package harness

import (
	"testing"

	"github.com/escouade-dev/escouade-plugin/acp"
)

// TestReviewBypassShowsNoCard: "The app mode decides what passes without
// a card" (docs/harness.md#permissions-and-the-app-mode): under
// bypassPermissions a permission request is answered and no card is shown.
func TestRegressBypassShowsNoCard(t *testing.T) {
	w := newWorld(t)
	script := reviewScript(t, `{"scenes":[{"steps":[{"permission":{"toolCall":{"toolCallId":"c1","title":"ls","kind":"execute"},
		"options":[{"optionId":"y","name":"Yes","kind":"allow_once"},{"optionId":"n","name":"No","kind":"reject_once"}]}}]}]}`)
	r := start(t, script, Options{Cwd: w.dir, Mode: ModeBypassPermissions})
	r.untilType(acp.TypeSession)
	r.must(r.s.Prompt("go"))
	items := r.untilType(acp.TypeTurn)
	diff(t, "agent got", []string{"permission: selected y"}, texts(items, acp.TypeText))
	diff(t, "cards shown", 0, len(ofType(items, acp.TypePermission)))
}
