package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestHarnessUpdatePrintsTheUpdateCommand: harness DIR --update prints the
// manifest's updateCommand for the user to run, starts nothing, and an
// agent older than tested says how to update it in its notice.
func TestHarnessUpdatePrintsTheUpdateCommand(t *testing.T) {
	withFakeACP(t, "conversation.json")
	dir := fakeWithEntry(t, func(h map[string]any) {
		h["updateCommand"] = "fake-acp self-update"
		h["tested"] = map[string]any{"oldest": "2.0.0"}
	})
	home := t.TempDir()
	code, out, errOut := runCLI(t, "", "harness", dir, "--update", "--home", home)
	if code != 0 || strings.TrimSpace(out) != "To update Fake ACP, run: fake-acp self-update" {
		t.Errorf("--update: exit %d, %q %q", code, out, errOut)
	}
	_, out, _ = runCLI(t, "", "harness", dir, "--update", "--json", "--home", home)
	var got map[string]string
	if err := json.Unmarshal([]byte(out), &got); err != nil || got["updateCommand"] != "fake-acp self-update" || got["harness"] != "plugin:dev.escouade.fake-acp:fake-acp" {
		t.Errorf("--update --json: %q (%v)", out, err)
	}
	items := reviewItems(t, `{"op":"prompt","text":"hi"}`+"\n", dir, "--home", home, "--cwd", t.TempDir(), "--json")
	want := "Fake ACP 1.0.0 has not been tried with this plugin (tried: 2.0.0 and later) (update it with: fake-acp self-update)"
	if !contains(itemTexts(items, "notice"), want) {
		t.Errorf("notices %q, want %q", itemTexts(items, "notice"), want)
	}
}
