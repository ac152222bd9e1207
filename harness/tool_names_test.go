package harness

import (
	"testing"

	"github.com/escouade-dev/escouade-plugin/acp"
)

// TestReviewToolNames plays the naming rules of docs/harness.md#tool-names through a
// real session: kinds, Goose titles, _meta, acp.tools, an unmapped title,
// Glob against Grep, Write for a new file, a later title that changes
// nothing, a sub-agent's calls.
func TestReviewToolNames(t *testing.T) {
	w := newWorld(t)
	script := reviewScript(t, `{"scenes":[{"steps":[
		{"update":{"sessionUpdate":"tool_call","toolCallId":"k-exec","title":"run","kind":"execute"}},
		{"update":{"sessionUpdate":"tool_call","toolCallId":"k-read","title":"read it","kind":"read"}},
		{"update":{"sessionUpdate":"tool_call","toolCallId":"k-del","title":"rm","kind":"delete"}},
		{"update":{"sessionUpdate":"tool_call","toolCallId":"k-move","title":"mv","kind":"move"}},
		{"update":{"sessionUpdate":"tool_call","toolCallId":"k-fetch","title":"get","kind":"fetch"}},
		{"update":{"sessionUpdate":"tool_call","toolCallId":"k-think","title":"hmm","kind":"think"}},
		{"update":{"sessionUpdate":"tool_call","toolCallId":"k-grep","title":"find","kind":"search","rawInput":{"pattern":"TODO","path":"."}}},
		{"update":{"sessionUpdate":"tool_call","toolCallId":"k-glob","title":"find","kind":"search","rawInput":{"pattern":"**/*.go"}}},
		{"update":{"sessionUpdate":"tool_call","toolCallId":"k-edit","title":"e","kind":"edit","content":[{"type":"diff","path":"/x/a","oldText":"a","newText":"b"}]}},
		{"update":{"sessionUpdate":"tool_call","toolCallId":"k-new","title":"w","kind":"edit","content":[{"type":"diff","path":"/x/b","oldText":null,"newText":"b"}]}},
		{"update":{"sessionUpdate":"tool_call","toolCallId":"goose","title":"developer: shell · ls -la","kind":"other"}},
		{"update":{"sessionUpdate":"tool_call","toolCallId":"nokind","title":"developer: shell · pwd"}},
		{"update":{"sessionUpdate":"tool_call","toolCallId":"meta","title":"whatever · x","kind":"other","_meta":{"fake-acp":{"toolCall":{"toolName":"tree"}}}}},
		{"update":{"sessionUpdate":"tool_call","toolCallId":"unmapped","title":"developer: frobnicate · now","kind":"other"}},
		{"update":{"sessionUpdate":"tool_call_update","toolCallId":"goose","title":"developer: write · a.txt"}},
		{"update":{"sessionUpdate":"tool_call","toolCallId":"sub","title":"task · explore","kind":"other","status":"in_progress"}},
		{"update":{"sessionUpdate":"tool_call","toolCallId":"inner","title":"look","kind":"read"}},
		{"update":{"sessionUpdate":"tool_call_update","toolCallId":"sub","status":"completed"}},
		{"update":{"sessionUpdate":"tool_call","toolCallId":"after","title":"look","kind":"read"}}
	]}]}`)
	r := start(t, script, Options{Cwd: w.dir})
	r.untilType(acp.TypeSession)
	r.must(r.s.Prompt("tools"))
	items := r.untilType(acp.TypeTurn)
	names := map[string]string{}
	parents := map[string]string{}
	for _, it := range ofType(items, acp.TypeTool) {
		key := it.ID
		if _, seen := names[key]; seen {
			key += "+"
		}
		names[key] = it.Name
		parents[key] = it.Parent
	}
	diff(t, "names", map[string]string{
		"k-exec": "Bash", "k-read": "Read", "k-del": "Delete", "k-move": "Move", "k-fetch": "WebFetch",
		"k-think": "Think", "k-grep": "Grep", "k-glob": "Glob", "k-edit": "Edit", "k-new": "Write",
		"goose": "Bash", "nokind": "Bash", "meta": "Glob", "unmapped": "developer: frobnicate · now",
		"goose+": "Bash", "sub": "task · explore", "inner": "Read", "after": "Read",
	}, names)
	diff(t, "parents", "sub", parents["inner"])
	diff(t, "no parent after the sub-agent", "", parents["after"])
}

// TestReviewSwitchModeIsAModeItem: a tool call of kind switch_mode is a
// mode item, not a tool.
func TestReviewSwitchModeIsAModeItem(t *testing.T) {
	w := newWorld(t)
	script := reviewScript(t, `{"scenes":[{"steps":[
		{"update":{"sessionUpdate":"tool_call","toolCallId":"sm","title":"Switch","kind":"switch_mode","rawInput":{"mode":"yolo"}}}
	]}]}`)
	r := start(t, script, Options{Cwd: w.dir})
	r.untilType(acp.TypeSession)
	r.must(r.s.Prompt("switch"))
	items := r.untilType(acp.TypeTurn)
	diff(t, "tool items", 0, len(ofType(items, acp.TypeTool)))
	var modes []acp.Item
	for _, it := range ofType(items, acp.TypeMode) {
		if it.ID == "sm" {
			modes = append(modes, it)
		}
	}
	if len(modes) != 1 || modes[0].Mode != "yolo" {
		t.Errorf("mode items: %s", brief(modes))
	}
}

// TestReviewToolNameFoundLater: a tool_call without title or _meta names
// nothing; the title of a later update is then the first name found.
func TestRegressToolNameFoundLater(t *testing.T) {
	w := newWorld(t)
	script := reviewScript(t, `{"scenes":[{"steps":[
		{"update":{"sessionUpdate":"tool_call","toolCallId":"late","kind":"other","status":"pending"}},
		{"update":{"sessionUpdate":"tool_call_update","toolCallId":"late","title":"developer: shell · ls","status":"in_progress"}}
	]}]}`)
	r := start(t, script, Options{Cwd: w.dir})
	r.untilType(acp.TypeSession)
	r.must(r.s.Prompt("late"))
	items := r.untilType(acp.TypeTurn)
	tools := ofType(items, acp.TypeTool)
	if len(tools) != 2 || tools[1].Name != "Bash" {
		t.Errorf("tool items: %s", brief(tools))
	}
}
