//go:build unix

package fs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/services"
	"github.com/escouade-dev/escouade-plugin/vocab/proto"
)

// homeFixture is an agent home folder (the user's, say) that holds the
// host's home (.escouade, with a journal, a secret and a compile cache),
// a link to it, and the plugin's temporary folder inside it.
func homeFixture(t *testing.T) (f *fixture, home, temp string) {
	t.Helper()
	user := t.TempDir()
	home = filepath.Join(user, ".escouade")
	temp = filepath.Join(home, "plugin-temp", pluginID)
	mustWrite(t, filepath.Join(home, "journal", "other.log"), "secret-ish")
	mustWrite(t, filepath.Join(home, "keychain.json"), `{"other/token":"s3cret"}`)
	mustWrite(t, filepath.Join(home, "wasm-cache", "code"), "machine code")
	mustWrite(t, filepath.Join(user, "notes.md"), "# notes")
	if err := os.Symlink(".escouade", filepath.Join(user, "alias")); err != nil {
		t.Fatal(err)
	}
	f = &fixture{agent: user}
	f.svc = New(Config{PluginID: pluginID, Granted: manifest.Permissions{Files: []string{"agentHome", "temp"}},
		Home: home, TempDir: temp,
		Roots: func(string) (AgentRoots, bool) { return AgentRoots{Home: f.agent}, true }})
	return f, home, temp
}

// The host's home is never read nor changed through fs/*, whatever root
// holds it and however the path spells it; beside it, and in the plugin's
// own temporary folder, fs/* works as granted.
func TestHostHomeIsNeverReadNorWritten(t *testing.T) {
	f, home, _ := homeFixture(t)
	calls := []struct {
		method string
		params any
	}{
		{"fs/read", at("agentHome", ".escouade/keychain.json")},
		{"fs/read", at("agentHome", "alias/journal/other.log")},
		{"fs/list", at("agentHome", ".escouade/wasm-cache")},
		{"fs/stat", at("agentHome", ".escouade")},
		{"fs/write", proto.FsWriteParams{Root: "agentHome", Path: ".escouade/wasm-cache/code", Agent: "a1", Text: "evil"}},
		{"fs/write", proto.FsWriteParams{Root: "agentHome", Path: "alias/wasm-cache/new", Agent: "a1", Text: "evil"}},
		{"fs/mkdir", at("agentHome", ".escouade/wasm-cache/more")},
		{"fs/remove", at("agentHome", ".escouade/journal/other.log")},
	}
	for _, c := range calls {
		_, err := f.call(t, c.method, c.params)
		got := refusalOf(err)
		if got.Code != services.CodeForbidden || !strings.Contains(got.Reason, "inside Escouade's own folder") {
			t.Errorf("%s %+v = %+v, want -32003 naming Escouade's own folder", c.method, c.params, got)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(home, "wasm-cache", "code")); string(b) != "machine code" {
		t.Errorf("the compile cache changed: %q", b)
	}
	for _, p := range []string{"wasm-cache/new", "wasm-cache/more"} {
		if _, err := os.Lstat(filepath.Join(home, p)); err == nil {
			t.Errorf("%s was made in the home", p)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "journal", "other.log")); err != nil {
		t.Errorf("the journal was removed: %v", err)
	}
	// Beside the home, fs/* works as granted; listing the folder above
	// it names the home without opening it.
	if got, err := f.call(t, "fs/read", at("agentHome", "notes.md")); err != nil || got != "# notes" {
		t.Errorf("read beside the home = %v, %v", got, err)
	}
	if _, err := f.call(t, "fs/write", proto.FsWriteParams{Root: "agentHome", Path: "new.md", Agent: "a1", Text: "x"}); err != nil {
		t.Errorf("write beside the home: %v", err)
	}
	if _, err := f.call(t, "fs/list", at("agentHome", ".")); err != nil {
		t.Errorf("list of the folder above the home: %v", err)
	}
}

// The plugin's temporary folder lives in the host's home, and is the one
// place of it fs/* serves: its own root, and the same folder reached
// through a root that holds the home.
func TestTempFolderInsideTheHomeIsServed(t *testing.T) {
	f, _, temp := homeFixture(t)
	if _, err := f.call(t, "fs/write", proto.FsWriteParams{Root: "temp", Path: "scratch.txt", Text: "mine"}); err != nil {
		t.Fatalf("write in the temporary folder: %v", err)
	}
	if got, err := f.call(t, "fs/read", at("temp", "scratch.txt")); err != nil || got != "mine" {
		t.Errorf("read in the temporary folder = %v, %v", got, err)
	}
	rel, err := filepath.Rel(f.agent, filepath.Join(temp, "scratch.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := f.call(t, "fs/read", at("agentHome", filepath.ToSlash(rel))); err != nil || got != "mine" {
		t.Errorf("read of the temporary folder through the home's root = %v, %v", got, err)
	}
}
