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

// ownFixture is an agent root that holds the plugin's own folder
// (plugins/me), a link to it, and a second root reached through a link
// that is inside the plugin's folder.
func ownFixture(t *testing.T) (*fixture, string) {
	t.Helper()
	base := t.TempDir()
	agent := filepath.Join(base, "agent")
	pluginDir := filepath.Join(agent, "plugins", "me")
	mustWrite(t, filepath.Join(pluginDir, "escouade-plugin.json"), `{"run":{"js":"p.mjs"}}`)
	mustWrite(t, filepath.Join(pluginDir, "data", "x.txt"), "x")
	mustWrite(t, filepath.Join(agent, "notes.md"), "# notes")
	if err := os.Symlink("plugins/me", filepath.Join(agent, "alias")); err != nil {
		t.Fatal(err)
	}
	// The agent's repo is given through a link to the plugin's data folder.
	if err := os.Symlink(filepath.Join(pluginDir, "data"), filepath.Join(base, "repo-link")); err != nil {
		t.Fatal(err)
	}
	f := &fixture{agent: agent, repo: filepath.Join(base, "repo-link")}
	f.svc = New(Config{PluginID: pluginID, Granted: manifest.Permissions{Files: []string{"agent", "agentRepo"}},
		PluginDir: pluginDir,
		Roots: func(string) (AgentRoots, bool) {
			return AgentRoots{Agent: f.agent, Repo: f.repo}, true
		}})
	return f, pluginDir
}

// A plugin's own folder is never changed through fs/*, whatever root holds
// it and however the path spells it; reads stay as the grant says.
func TestOwnFolderIsNeverWritten(t *testing.T) {
	f, pluginDir := ownFixture(t)
	manifestBefore, _ := os.ReadFile(filepath.Join(pluginDir, "escouade-plugin.json"))
	changes := []struct {
		method string
		params any
	}{
		{"fs/write", proto.FsWriteParams{Root: "agent", Path: "plugins/me/escouade-plugin.json", Agent: "a1", Text: `{"run":{"command":["sh"]}}`}},
		{"fs/write", proto.FsWriteParams{Root: "agent", Path: "alias/escouade-plugin.json", Agent: "a1", Text: "x"}},
		{"fs/write", proto.FsWriteParams{Root: "agent", Path: "plugins/./me/new.txt", Agent: "a1", Text: "x"}},
		{"fs/write", proto.FsWriteParams{Root: "agentRepo", Path: "x.txt", Agent: "a1", Text: "y"}},
		{"fs/mkdir", at("agent", "plugins/me/bin")},
		{"fs/mkdir", at("agent", "alias/bin/deep")},
		{"fs/mkdir", at("agentRepo", "sub")},
		{"fs/remove", at("agent", "plugins/me/data/x.txt")},
		{"fs/remove", at("agent", "alias/escouade-plugin.json")},
		{"fs/remove", at("agentRepo", "x.txt")},
	}
	for _, c := range changes {
		_, err := f.call(t, c.method, c.params)
		got := refusalOf(err)
		if got.Code != services.CodeForbidden || !strings.Contains(got.Reason, "inside the plugin's own folder") {
			t.Errorf("%s %+v = %+v, want -32003 naming the plugin's own folder", c.method, c.params, got)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(pluginDir, "escouade-plugin.json")); string(after) != string(manifestBefore) {
		t.Errorf("the manifest changed: %q", after)
	}
	for _, p := range []string{"new.txt", "bin", "data/sub"} {
		if _, err := os.Lstat(filepath.Join(pluginDir, p)); err == nil {
			t.Errorf("%s was made in the plugin's folder", p)
		}
	}
	// Reads and changes beside the folder stay as granted.
	if got, err := f.call(t, "fs/read", at("agent", "alias/escouade-plugin.json")); err != nil || got != string(manifestBefore) {
		t.Errorf("read of its own manifest = %v, %v", got, err)
	}
	if _, err := f.call(t, "fs/write", proto.FsWriteParams{Root: "agent", Path: "plugins/other.txt", Agent: "a1", Text: "ok"}); err != nil {
		t.Errorf("write beside the folder: %v", err)
	}
	if _, err := f.call(t, "fs/remove", at("agent", "alias")); err != nil {
		t.Errorf("remove of a link to the folder (the link itself): %v", err)
	}
}

// A hard link in a root to a file outside it is neither read nor written.
func TestHardLinksAreRefused(t *testing.T) {
	f := newFixture(t)
	outside := filepath.Join(filepath.Dir(f.agent), "outside.txt")
	if err := os.Link(outside, filepath.Join(f.agent, "linked.txt")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	for _, c := range []struct {
		method string
		params any
	}{
		{"fs/read", at("agent", "linked.txt")},
		{"fs/write", proto.FsWriteParams{Root: "agent", Path: "linked.txt", Agent: "a1", Text: "overwritten"}},
	} {
		_, err := f.call(t, c.method, c.params)
		got := refusalOf(err)
		if got.Code != services.CodeForbidden || !strings.Contains(got.Reason, "2 hard links") {
			t.Errorf("%s = %+v, want -32003 naming the hard links", c.method, got)
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "SECRET" {
		t.Errorf("the file outside is now %q", b)
	}
	// Its one other name gone, the file is the root's own again.
	os.Remove(outside)
	if got, err := f.call(t, "fs/read", at("agent", "linked.txt")); err != nil || got != "SECRET" {
		t.Errorf("read once it has one name = %v, %v", got, err)
	}
}
