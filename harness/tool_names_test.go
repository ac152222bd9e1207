package harness

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/acp"
	"github.com/escouade-dev/escouade-plugin/manifest"
)

// reviewScript writes a fake agent script given inline.
func reviewScript(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReviewToolNames plays the naming rules of ACP-HARNESS §5 through a
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

// TestReviewFSOffAdvertisesNoFS: with "fs": false the client offers no fs
// capability and refuses the agent's fs requests.
func TestReviewFSOffAdvertisesNoFS(t *testing.T) {
	w := newWorld(t)
	writeFile(t, filepath.Join(w.dir, "a.txt"), "text")
	m := fakeManifest(t, func(h *manifest.Harness) { h.ACP.ClientFS = ptr(false) })
	script := reviewScript(t, `{"scenes":[{"steps":[{"read":{"path":"{cwd}/a.txt"}},{"write":{"path":"{cwd}/b.txt","content":"x"}}]}]}`)
	r := start(t, script, Options{Cwd: w.dir, Manifest: m})
	r.untilType(acp.TypeSession)
	r.must(r.s.Prompt("files"))
	items := r.untilType(acp.TypeTurn)
	diff(t, "agent got", []string{
		"fs/read_text_file error: method not found: fs/read_text_file",
		"fs/write_text_file error: method not found: fs/write_text_file",
	}, texts(items, acp.TypeText))
	var init struct {
		Params struct {
			ClientCapabilities struct {
				FS       map[string]bool `json:"fs"`
				Terminal bool            `json:"terminal"`
			} `json:"clientCapabilities"`
			ClientInfo      struct{ Name string } `json:"clientInfo"`
			ProtocolVersion int                   `json:"protocolVersion"`
		} `json:"params"`
	}
	b, _ := json.Marshal(r.received()[0])
	if err := json.Unmarshal(b, &init); err != nil {
		t.Fatal(err)
	}
	diff(t, "fs advertised", false, init.Params.ClientCapabilities.FS["readTextFile"] || init.Params.ClientCapabilities.FS["writeTextFile"])
	diff(t, "client", "escouade", init.Params.ClientInfo.Name)
	diff(t, "version", 1, init.Params.ProtocolVersion)
	if _, err := os.Stat(filepath.Join(w.dir, "b.txt")); !os.IsNotExist(err) {
		t.Errorf("the host wrote for an fs:false agent: %v", err)
	}
}

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

// TestReviewCancel plays the four answers to a cancel (§4.5): honoured,
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
