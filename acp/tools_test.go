package acp

import "testing"

func TestToolNames(t *testing.T) {
	n := namer{agent: "goose", tools: map[string]string{"shell": "Bash", "tree": "Glob", "todo": "TodoWrite"}}
	tests := []struct {
		name      string
		facts     toolFacts
		wantApp   string
		wantAgent string
	}{
		{"execute", toolFacts{Kind: "execute", Title: "ls"}, "Bash", ""},
		{"edit", toolFacts{Kind: "edit", Diffs: []Diff{{Path: "a", OldText: ptr("x"), NewText: "y"}}}, "Edit", ""},
		{"edit without diff", toolFacts{Kind: "edit"}, "Edit", ""},
		{"edit of an empty file", toolFacts{Kind: "edit", Diffs: []Diff{{Path: "a", OldText: ptr(""), NewText: "y"}}}, "Edit", ""},
		{"new file", toolFacts{Kind: "edit", Diffs: []Diff{{Path: "a", NewText: "y"}}}, "Write", ""},
		{"delete", toolFacts{Kind: "delete"}, "Delete", ""},
		{"move", toolFacts{Kind: "move"}, "Move", ""},
		{"read", toolFacts{Kind: "read"}, "Read", ""},
		{"search contents", toolFacts{Kind: "search", Input: raw(`{"pattern":"func main"}`)}, "Grep", ""},
		{"search regex with star", toolFacts{Kind: "search", Input: raw(`{"pattern":"foo.*bar"}`)}, "Grep", ""},
		{"search names", toolFacts{Kind: "search", Input: raw(`{"pattern":"**/*.go"}`)}, "Glob", ""},
		{"search names at the root", toolFacts{Kind: "search", Input: raw(`{"pattern":"*.md","path":"/p"}`)}, "Glob", ""},
		{"search with glob filter is Grep", toolFacts{Kind: "search", Input: raw(`{"pattern":"x","glob":"*.go","output_mode":"content"}`)}, "Grep", ""},
		{"search glob key", toolFacts{Kind: "search", Input: raw(`{"glob":"src/*.ts"}`)}, "Glob", ""},
		{"search input not an object", toolFacts{Kind: "search", Input: raw(`"*.go"`)}, "Grep", ""},
		{"fetch", toolFacts{Kind: "fetch"}, "WebFetch", ""},
		{"think", toolFacts{Kind: "think"}, "Think", ""},
		{"goose title", toolFacts{Kind: "other", Title: "developer: shell · ls -la"}, "Bash", "shell"},
		{"no kind, title", toolFacts{Title: "tree · /src"}, "Glob", "tree"},
		{"unknown kind is other", toolFacts{Kind: "teleport", Title: "shell"}, "Bash", "shell"},
		{"last colon", toolFacts{Kind: "other", Title: "a: b: shell"}, "Bash", "shell"},
		{"colon without space", toolFacts{Kind: "other", Title: "http://x · get"}, "http://x · get", "http://x"},
		{"meta first", toolFacts{Kind: "other", Title: "developer: shell · ls", Meta: raw(`{"goose":{"toolCall":{"toolName":"todo"}}}`)}, "TodoWrite", "todo"},
		{"meta of another agent", toolFacts{Kind: "other", Title: "shell", Meta: raw(`{"other":{"toolCall":{"toolName":"todo"}}}`)}, "Bash", "shell"},
		{"meta of the wrong shape", toolFacts{Kind: "other", Title: "shell", Meta: raw(`{"goose":5,"x":[]}`)}, "Bash", "shell"},
		{"unmapped is shown by title", toolFacts{Kind: "other", Title: " developer: frobnicate · now "}, "developer: frobnicate · now", "frobnicate"},
		{"empty title", toolFacts{Kind: "other"}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app, agent := n.name(tt.facts)
			diff(t, "names", []string{tt.wantApp, tt.wantAgent}, []string{app, agent})
		})
	}
}

func TestToolLifecycle(t *testing.T) {
	c := ready(t, Options{Tools: map[string]string{"shell": "Bash"}}, initOK)
	items, _ := feed(c,
		updateLine(`{"sessionUpdate":"tool_call","toolCallId":"t1","title":"developer: shell · ls","kind":"other","status":"pending","rawInput":{"command":"ls"},"locations":[{"path":"/p/a"}]}`),
		updateLine(`{"sessionUpdate":"tool_call_update","toolCallId":"t1","title":"developer: text_editor · renamed","status":"in_progress"}`),
		updateLine(`{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed","rawOutput":{"stdout":"a"}}`),
		updateLine(`{"sessionUpdate":"tool_call","toolCallId":"t2","title":"Edit a","kind":"edit","content":[{"type":"diff","path":"/p/a","oldText":null,"newText":"x"}]}`),
		updateLine(`{"sessionUpdate":"tool_call_update","toolCallId":"t2","status":"failed","content":[{"type":"content","content":{"type":"text","text":"denied"}}]}`),
		updateLine(`{"sessionUpdate":"tool_call_update","toolCallId":"t3","title":"Read b","kind":"read","status":"completed"}`),
	)
	want := []Item{
		{Type: TypeTool, ID: "t1", Name: "Bash", Title: "developer: shell · ls", Kind: "other", Status: "pending",
			Input: raw(`{"command":"ls"}`), Locations: []string{"/p/a"}},
		{Type: TypeTool, ID: "t1", Name: "Bash", Title: "developer: text_editor · renamed", Kind: "other", Status: "in_progress"},
		{Type: TypeToolDone, ID: "t1", Name: "Bash", Title: "developer: text_editor · renamed", Status: "completed", Output: raw(`{"stdout":"a"}`)},
		{Type: TypeTool, ID: "t2", Name: "Write", Title: "Edit a", Kind: "edit",
			Content: raw(`[{"type":"diff","path":"/p/a","oldText":null,"newText":"x"}]`),
			Diffs:   []Diff{{Path: "/p/a", NewText: "x"}}},
		{Type: TypeToolDone, ID: "t2", Name: "Write", Title: "Edit a", Status: "failed", Error: "denied",
			Output: raw(`[{"type":"content","content":{"type":"text","text":"denied"}}]`)},
		{Type: TypeToolDone, ID: "t3", Name: "Read", Title: "Read b", Status: "completed"},
	}
	diff(t, "items", want, items)
}

func TestToolCallErrors(t *testing.T) {
	c := ready(t, Options{}, initOK)
	items, _ := feed(c, updateLine(`{"sessionUpdate":"tool_call","title":"x"}`))
	want := []Item{notice("the agent's tool_call update is not understood: no toolCallId"),
		unknown(raw(`{"sessionUpdate":"tool_call","title":"x"}`))}
	diff(t, "items", want, items)
}

func TestSubagentParents(t *testing.T) {
	c := ready(t, Options{SubagentTools: []string{"Task"}}, initOK)
	items, _ := feed(c,
		updateLine(`{"sessionUpdate":"tool_call","toolCallId":"a","title":"Task","kind":"other"}`),
		updateLine(`{"sessionUpdate":"tool_call","toolCallId":"b","title":"ls","kind":"execute"}`),
		updateLine(`{"sessionUpdate":"tool_call","toolCallId":"c","title":"Task","kind":"other"}`),
		updateLine(`{"sessionUpdate":"tool_call","toolCallId":"d","title":"cat","kind":"read"}`),
		updateLine(`{"sessionUpdate":"tool_call_update","toolCallId":"c","status":"completed"}`),
		updateLine(`{"sessionUpdate":"tool_call","toolCallId":"e","title":"pwd","kind":"execute"}`),
		updateLine(`{"sessionUpdate":"tool_call_update","toolCallId":"a","status":"completed"}`),
		updateLine(`{"sessionUpdate":"tool_call","toolCallId":"f","title":"top","kind":"execute"}`),
	)
	var got []string
	for _, it := range items {
		got = append(got, it.Type+" "+it.ID+"<"+it.Parent)
	}
	want := []string{"tool a<", "tool b<a", "tool c<a", "tool d<c", "toolDone c<a", "tool e<a", "toolDone a<", "tool f<"}
	diff(t, "parents", want, got)
}

func TestSwitchModeToolIsAModeItem(t *testing.T) {
	c := ready(t, Options{}, initOK)
	items, _ := feed(c,
		updateLine(`{"sessionUpdate":"tool_call","toolCallId":"sm","title":"Ready to code?","kind":"switch_mode","rawInput":{"mode":"code"}}`),
		updateLine(`{"sessionUpdate":"tool_call_update","toolCallId":"sm","status":"completed"}`),
	)
	want := []Item{{Type: TypeMode, ID: "sm", Title: "Ready to code?", Mode: "code", Input: raw(`{"mode":"code"}`)}}
	diff(t, "items", want, items)
}

// TestClaudeCodeWriteIsNamedWrite plays a new file as Claude Code's ACP
// adapter (@agentclientprotocol/claude-agent-acp 0.25, src/acp-agent.ts and
// src/tools.ts) sends it: a first tool_call while the input still streams
// (no path, no diff, kind edit), the full call as a tool_call_update, the
// permission request, the PostToolUse hook's update and the result.
func TestClaudeCodeWriteIsNamedWrite(t *testing.T) {
	c := ready(t, Options{}, initOK)
	items, _ := feed(c,
		updateLine(`{"_meta":{"claudeCode":{"toolName":"Write"}},"toolCallId":"toolu_01W","sessionUpdate":"tool_call","rawInput":{},"status":"pending","title":"Write","kind":"edit","content":[],"locations":[]}`),
		updateLine(`{"_meta":{"claudeCode":{"toolName":"Write"}},"toolCallId":"toolu_01W","sessionUpdate":"tool_call_update","rawInput":{"file_path":"/p/new.txt","content":"hello\n"},"title":"Write new.txt","kind":"edit","content":[{"type":"diff","path":"/p/new.txt","oldText":null,"newText":"hello\n"}],"locations":[{"path":"/p/new.txt"}]}`),
		`{"jsonrpc":"2.0","id":"p1","method":"session/request_permission","params":{"sessionId":"s1","options":[{"kind":"allow_always","name":"Always Allow","optionId":"allow_always"},{"kind":"allow_once","name":"Allow","optionId":"allow"},{"kind":"reject_once","name":"Reject","optionId":"reject"}],"toolCall":{"toolCallId":"toolu_01W","rawInput":{"file_path":"/p/new.txt","content":"hello\n"},"title":"Write new.txt","kind":"edit","content":[{"type":"diff","path":"/p/new.txt","oldText":null,"newText":"hello\n"}],"locations":[{"path":"/p/new.txt"}]}}}`,
		updateLine(`{"_meta":{"claudeCode":{"toolResponse":{"type":"create","filePath":"/p/new.txt","content":"hello\n"},"toolName":"Write"}},"toolCallId":"toolu_01W","sessionUpdate":"tool_call_update"}`),
		updateLine(`{"_meta":{"claudeCode":{"toolName":"Write"}},"toolCallId":"toolu_01W","sessionUpdate":"tool_call_update","status":"completed","rawOutput":[{"type":"text","text":"File created successfully at: /p/new.txt"}]}`),
	)
	var got []string
	for _, it := range items {
		got = append(got, it.Type+" "+it.Name)
	}
	diff(t, "names", []string{"tool Write", "tool Write", "permission Write", "tool Write", "toolDone Write"}, got)
}

// TestNameFollowsTheLatestKind: without _meta, a call first seen as an edit
// with no diff yet is renamed Write by the update that shows a new file,
// and an update that says nothing of the tool keeps that name.
func TestNameFollowsTheLatestKind(t *testing.T) {
	c := ready(t, Options{}, initOK)
	items, _ := feed(c,
		updateLine(`{"sessionUpdate":"tool_call","toolCallId":"t1","title":"Write","kind":"edit","status":"pending"}`),
		updateLine(`{"sessionUpdate":"tool_call_update","toolCallId":"t1","content":[{"type":"diff","path":"/p/n","oldText":null,"newText":"x"}]}`),
		updateLine(`{"sessionUpdate":"tool_call_update","toolCallId":"t1","title":"Write n","status":"in_progress"}`),
		updateLine(`{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed"}`),
	)
	var got []string
	for _, it := range items {
		got = append(got, it.Type+" "+it.Name)
	}
	diff(t, "names", []string{"tool Edit", "tool Write", "tool Write", "toolDone Write"}, got)
}

// TestClaudeCodeEditStaysEdit: Claude Code's Edit whose result hunk only
// adds lines carries oldText null (src/tools.ts,
// toolUpdateFromEditToolResponse); its own name says Edit, not Write.
func TestClaudeCodeEditStaysEdit(t *testing.T) {
	c := ready(t, Options{}, initOK)
	items, _ := feed(c,
		updateLine(`{"_meta":{"claudeCode":{"toolName":"Edit"}},"toolCallId":"toolu_02E","sessionUpdate":"tool_call","rawInput":{"file_path":"/p/a.txt","old_string":"a","new_string":"a\nb"},"status":"pending","title":"Edit a.txt","kind":"edit","content":[{"type":"diff","path":"/p/a.txt","oldText":"a","newText":"a\nb"}],"locations":[{"path":"/p/a.txt"}]}`),
		updateLine(`{"_meta":{"claudeCode":{"toolResponse":{"filePath":"/p/a.txt","structuredPatch":[{"oldStart":2,"oldLines":0,"newStart":2,"newLines":1,"lines":["+b"]}]},"toolName":"Edit"}},"toolCallId":"toolu_02E","sessionUpdate":"tool_call_update","content":[{"type":"diff","path":"/p/a.txt","oldText":null,"newText":"b"}],"locations":[{"path":"/p/a.txt","line":2}]}`),
	)
	var got []string
	for _, it := range items {
		got = append(got, it.Type+" "+it.Name)
	}
	diff(t, "names", []string{"tool Edit", "tool Edit"}, got)
}

// TestDocumentedMetaNameStillRead: _meta.<agent>.toolCall.toolName, the
// agent's name from its initialize answer, comes before claudeCode's.
func TestDocumentedMetaNameStillRead(t *testing.T) {
	n := namer{agent: "goose", tools: map[string]string{"todo": "TodoWrite"}}
	app, agent := n.name(toolFacts{Kind: "other", Meta: raw(`{"goose":{"toolCall":{"toolName":"todo"}},"claudeCode":{"toolName":"Bash"}}`)})
	diff(t, "names", []string{"TodoWrite", "todo"}, []string{app, agent})
	app, _ = n.name(toolFacts{Kind: "think", Title: "Explore", Meta: raw(`{"claudeCode":{"toolName":"Task"}}`)})
	diff(t, "Claude Code's own name before the kind", "Task", app)
	app, _ = n.name(toolFacts{Kind: "execute", Meta: raw(`{"claudeCode":{"toolName":"  "}}`)})
	diff(t, "a blank name says nothing", "Bash", app)
}

// TestGeminiNewFileDiff: Gemini CLI's permission request for write_file of a
// new file (packages/cli/src/zed-integration/zedIntegration.ts) gives the
// diff oldText "" and _meta.kind "add": a new file, so a Write.
func TestGeminiNewFileDiff(t *testing.T) {
	c := ready(t, Options{}, initOK)
	items, _ := feed(c, `{"jsonrpc":"2.0","id":3,"method":"session/request_permission","params":{"sessionId":"s1","options":[{"optionId":"proceed_always","name":"Allow All Edits","kind":"allow_always"},{"optionId":"proceed_once","name":"Allow","kind":"allow_once"},{"optionId":"cancel","name":"Reject","kind":"reject_once"}],"toolCall":{"toolCallId":"write_file-1","status":"pending","title":"Writing to hello.txt","content":[{"type":"diff","path":"/p/hello.txt","oldText":"","newText":"hi\n","_meta":{"kind":"add"}}],"locations":[{"path":"/p/hello.txt"}],"kind":"edit"}}}`)
	if len(items) != 1 {
		t.Fatalf("items: %+v", items)
	}
	diff(t, "diffs", []Diff{{Path: "/p/hello.txt", NewText: "hi\n"}}, items[0].Diffs)
	diff(t, "name", "Write", items[0].Name)
	// A modified file keeps its old text, whatever _meta says, and a _meta
	// of the wrong shape loses nothing.
	got := diffsOf(raw(`[{"type":"diff","path":"/p/a","oldText":"","newText":"x","_meta":{"kind":"modify"}},{"type":"diff","path":"/p/b","oldText":"o","newText":"x","_meta":7}]`))
	diff(t, "kept", []Diff{{Path: "/p/a", OldText: ptr(""), NewText: "x"}, {Path: "/p/b", OldText: ptr("o"), NewText: "x"}}, got)
}
