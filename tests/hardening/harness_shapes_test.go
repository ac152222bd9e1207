//go:build linux

package hardening

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// consoleItems reads the items of the harness's JSON console.
func consoleItems(t *testing.T, out string) []map[string]any {
	t.Helper()
	var items []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m struct {
			Op   string         `json:"op"`
			Item map[string]any `json:"item"`
		}
		if json.Unmarshal([]byte(l), &m) == nil && m.Op == "item" {
			items = append(items, m.Item)
		}
	}
	return items
}

func itemsOfType(items []map[string]any, typ string) []map[string]any {
	var list []map[string]any
	for _, it := range items {
		if it["type"] == typ {
			list = append(list, it)
		}
	}
	return list
}

// Goose 1.37's own edit tool asks permission with its input {path, before,
// after} and no diff (crates/goose/src/agents/platform_extensions/developer/edit.rs);
// through the built command the card shows the whole file before and
// after, and the file is not touched: a card shows, it never applies.
func TestHarnessGooseEditCardHasADiff(t *testing.T) {
	dir := fakeHarness(t, func(h map[string]any) {
		h["acp"].(map[string]any)["tools"] = map[string]string{"edit": "Edit", "write": "Write", "shell": "Bash"}
	})
	cwd := t.TempDir()
	notes := filepath.Join(cwd, "notes.txt")
	writeFile(t, notes, []byte("buy milk\nwalk the dog\n"))
	script := `{"scenes":[{"steps":[
		{"permission":{"toolCall":{"toolCallId":"call_edit_1","title":"edit","kind":"edit","rawInput":{"path":"notes.txt","before":"milk","after":"oat milk"}},
			"options":[{"optionId":"allow_once","name":"Allow once","kind":"allow_once"},{"optionId":"reject_once","name":"Reject","kind":"reject_once"}]}}
	]}]}`
	out, errText, code := harnessCLI(t, `{"op":"prompt","text":"fix the list"}`+"\n", script, dir, "--home", t.TempDir(), "--cwd", cwd, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errText)
	}
	cards := itemsOfType(consoleItems(t, out), "permission")
	if len(cards) != 1 {
		t.Fatalf("%d cards:\n%s", len(cards), tail(out, 3000))
	}
	got, _ := json.Marshal(cards[0]["diffs"])
	want, _ := json.Marshal([]map[string]any{{"path": notes, "oldText": "buy milk\nwalk the dog\n", "newText": "buy oat milk\nwalk the dog\n"}})
	if string(got) != string(want) {
		t.Errorf("the card's diffs:\n got %s\nwant %s", got, want)
	}
	if b, _ := os.ReadFile(notes); string(b) != "buy milk\nwalk the dog\n" {
		t.Errorf("the card changed the file: %q", b)
	}
}

// Claude Code's ACP adapter (@agentclientprotocol/claude-agent-acp) first
// sends a new file's call while its input streams: kind edit, no diff, its
// name at _meta.claudeCode.toolName, and an extra "name" field. Through the
// built command every item of that call, the card included, is named
// Write, and no unknown item comes beside it. (Nobody answers the card:
// the end of input cancels it.)
func TestHarnessClaudeWriteIsNamedWrite(t *testing.T) {
	dir := fakeHarness(t, func(h map[string]any) {})
	cwd := t.TempDir()
	file := filepath.Join(cwd, "hello.txt")
	update := func(s string) string { return `{"update":` + s + `}` }
	steps := []string{
		update(`{"_meta":{"claudeCode":{"toolName":"Write"}},"toolCallId":"toolu_01W","sessionUpdate":"tool_call","name":"Write","rawInput":{},"status":"pending","title":"Write","kind":"edit","content":[],"locations":[]}`),
		update(`{"_meta":{"claudeCode":{"toolName":"Write"}},"toolCallId":"toolu_01W","sessionUpdate":"tool_call_update","rawInput":{"file_path":"` + file + `","content":"hi\n"},"title":"Write hello.txt","kind":"edit","content":[{"type":"diff","path":"` + file + `","oldText":null,"newText":"hi\n"}],"locations":[{"path":"` + file + `"}]}`),
		`{"permission":{"toolCall":{"toolCallId":"toolu_01W","rawInput":{"file_path":"` + file + `","content":"hi\n"},"title":"Write hello.txt","kind":"edit","content":[{"type":"diff","path":"` + file + `","oldText":null,"newText":"hi\n"}],"locations":[{"path":"` + file + `"}]},
			"options":[{"kind":"allow_always","name":"Always Allow","optionId":"allow_always"},{"kind":"allow_once","name":"Allow","optionId":"allow"},{"kind":"reject_once","name":"Reject","optionId":"reject"}]}}`,
	}
	script := `{"scenes":[{"steps":[` + strings.Join(steps, ",") + `]}]}`
	out, errText, code := harnessCLI(t, `{"op":"prompt","text":"write hello"}`+"\n", script, dir, "--home", t.TempDir(), "--cwd", cwd, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errText)
	}
	items := consoleItems(t, out)
	var names []string
	for _, it := range items {
		if it["id"] == "toolu_01W" {
			names = append(names, it["type"].(string)+" "+it["name"].(string))
		}
	}
	want := "tool Write|tool Write|permission Write"
	if strings.Join(names, "|") != want {
		t.Errorf("names %q, want %q:\n%s", strings.Join(names, "|"), want, tail(out, 3000))
	}
	if unknown := itemsOfType(items, "unknown"); len(unknown) != 0 {
		t.Errorf("%d unknown items: %v", len(unknown), unknown)
	}
}
