//go:build linux

package hardening

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A module granted a root that holds Escouade's home (an agent working in
// the user's home folder holds ~/.escouade) can neither read it (other
// plugins' journals and secrets) nor write it (the compile cache, whose
// machine code the host runs as it is), however the path spells it.
func TestModuleCannotReachTheHostHome(t *testing.T) {
	user := filepath.Join(t.TempDir(), "user")
	home := filepath.Join(user, ".escouade")
	dir := ownFolderRelayPlugin(t, filepath.Join(user, "work"))
	writeFile(t, filepath.Join(home, "keychain-notes.txt"), []byte("SECRET"))
	if err := os.Symlink(".escouade", filepath.Join(user, "alias")); err != nil {
		t.Fatal(err)
	}
	s := runHome(t, dir, home)
	defer s.close()
	s.sendJSON(map[string]any{"op": "attach", "agent": "a1", "params": map[string]any{"cwd": user}})
	s.answer("a1")
	refused := []struct {
		method string
		params map[string]any
	}{
		{"fs/read", at(".escouade/keychain-notes.txt")},
		{"fs/read", at("alias/keychain-notes.txt")},
		{"fs/list", at("alias/wasm-cache")},
		{"fs/write", at("alias/wasm-cache/planted", "machine code")},
		{"fs/mkdir", at(".escouade/wasm-cache/more")},
		{"fs/remove", at("alias/keychain-notes.txt")},
	}
	for i, c := range refused {
		if code, _ := relay(t, s, "r"+itoa(i), c.method, c.params); code != -32003 {
			t.Errorf("%s %v: code %d, want -32003", c.method, c.params["path"], code)
		}
	}
	if _, err := os.Lstat(filepath.Join(home, "wasm-cache", "planted")); err == nil {
		t.Error("a file was planted in the compile cache")
	}
	if b, _ := os.ReadFile(filepath.Join(home, "keychain-notes.txt")); string(b) != "SECRET" {
		t.Errorf("the home's file is now %q", b)
	}
	journal := strings.Join(s.journalOp(200), "\n")
	if !strings.Contains(journal, "inside Escouade's own folder (its home)") {
		t.Errorf("the journal lacks the refusal:\n%s", tail(journal, 3000))
	}
	// Beside the home, the grant stays given.
	if code, _ := relay(t, s, "ok", "fs/write", at("notes.md", "ok")); code != 0 {
		t.Errorf("write beside the home: code %d", code)
	}
}
