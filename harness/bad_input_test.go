package harness

import (
	"encoding/json"
	"testing"

	"github.com/escouade-dev/escouade-plugin/acp"
)

// TestReviewBadInputKeepsTheSession: garbage, unknown methods, unknown
// update kinds, unknown content types, a batch, a 20 MiB line: then the
// session still answers a prompt.
func TestReviewBadInputKeepsTheSession(t *testing.T) {
	w := newWorld(t)
	script := reviewScript(t, `{"scenes":[{"steps":[
		{"line":"not json at all"},
		{"line":"{\"jsonrpc\":\"2.0\",\"method\":\"x/unknown\",\"params\":{}}"},
		{"line":"{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"x/ask\",\"params\":{}}"},
		{"line":"[1,2"},
		{"line":"\u0000\u0001"},
		{"update":{"sessionUpdate":"telepathy","x":1}},
		{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"hologram","data":"?"}}},
		{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"extra"},"shiny":true}},
		{"bigLine":20971520},
		{"text":"still here"}
	]},{"steps":[{"echoPrompt":true}]}]}`)
	r := start(t, script, Options{Cwd: w.dir})
	r.untilType(acp.TypeSession)
	r.must(r.s.Prompt("bad"))
	items := r.untilType(acp.TypeTurn)
	diff(t, "stop", "end_turn", items[len(items)-1].StopReason)
	var big int
	for _, it := range ofType(items, acp.TypeText) {
		if len(it.Text) == 20971520 {
			big++
		}
	}
	diff(t, "the 20 MiB text", 1, big)
	unknowns := ofType(items, acp.TypeUnknown)
	if len(unknowns) < 4 {
		t.Errorf("unknown items: %s", brief(unknowns))
	}
	for _, u := range unknowns {
		if !json.Valid(u.Raw) {
			t.Errorf("unknown item without raw JSON: %s", brief([]acp.Item{u}))
		}
	}
	r.must(r.s.Prompt("again"))
	items = r.untilType(acp.TypeTurn)
	diff(t, "echo", []string{"again"}, texts(items, acp.TypeText))
}
