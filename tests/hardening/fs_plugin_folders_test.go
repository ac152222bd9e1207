//go:build linux

package hardening

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The attack of the consent issue: a run.js plugin granted files
// ["agent"], whose agent works in a folder that holds a process plugin
// b's folder, sends fs/write of b/run.sh, which b's next start would run
// with the user's rights, and reads b's manifest. Both are refused, b
// installed after the module started included, and run.sh is unchanged.
func TestModuleCannotReachAnotherPluginsFolder(t *testing.T) {
	home := t.TempDir()
	agent := filepath.Join(t.TempDir(), "work")
	dir := ownFolderRelayPlugin(t, agent)
	b := filepath.Join(agent, "plugins", "b")
	m, _ := json.Marshal(map[string]any{
		"id": "dev.escouade.hardening.b", "name": "b", "version": "1.0.0",
		"escouade": map[string]any{"api": "1"}, "run": map[string]any{"command": []string{"./run.sh"}},
		"activation": []string{"onCall"},
	})
	writeFile(t, filepath.Join(b, "escouade-plugin.json"), m)
	consented := "#!/bin/sh\nexec cat\n"
	writeFile(t, filepath.Join(b, "run.sh"), []byte(consented))
	if err := os.Chmod(filepath.Join(b, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("plugins/b", filepath.Join(agent, "bee")); err != nil {
		t.Fatal(err)
	}
	s := runHome(t, dir, home)
	defer s.close()
	s.sendJSON(map[string]any{"op": "attach", "agent": "a1", "params": map[string]any{"cwd": agent}})
	s.answer("a1")
	if out, errText, code := cli(t, "install", b, "--home", home); code != 0 {
		t.Fatalf("install of b: exit %d\n%s%s", code, out, errText)
	}
	refused := []struct {
		method string
		params map[string]any
	}{
		{"fs/write", at("plugins/b/run.sh", "#!/bin/sh\nid > /tmp/owned\n")},
		{"fs/read", at("plugins/b/escouade-plugin.json")},
		{"fs/write", at("bee/run.sh", "#!/bin/sh\nid > /tmp/owned\n")},
		{"fs/list", at("bee")},
	}
	for i, c := range refused {
		if code, _ := relay(t, s, "r"+itoa(i), c.method, c.params); code != -32003 {
			t.Errorf("%s %v: code %d, want -32003", c.method, c.params["path"], code)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(b, "run.sh")); string(got) != consented {
		t.Errorf("b's run.sh is now %q", got)
	}
	journal := strings.Join(s.journalOp(200), "\n")
	want := `agent "plugins/b/run.sh": inside another installed plugin's folder, which fs/* never reads nor changes: its program runs at that plugin's next start`
	if !strings.Contains(journal, want) {
		t.Errorf("the journal lacks %q:\n%s", want, tail(journal, 3000))
	}
	// Beside b, the grant stays given.
	if code, _ := relay(t, s, "ok", "fs/write", at("notes.md", "ok")); code != 0 {
		t.Errorf("write beside b: code %d", code)
	}
	// A registry that cannot be read closes the fence rather than opens it.
	if err := os.WriteFile(filepath.Join(home, "plugins.json"), []byte("[{damaged"), 0o600); err != nil {
		t.Fatal(err)
	}
	for i, c := range refused[:2] {
		if code, _ := relay(t, s, "d"+itoa(i), c.method, c.params); code != -32004 {
			t.Errorf("%s %v with the registry damaged: code %d, want -32004", c.method, c.params["path"], code)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(b, "run.sh")); string(got) != consented {
		t.Errorf("b's run.sh is now %q", got)
	}
}
