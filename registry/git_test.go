package registry

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gitRun runs git for a fixture, with a configuration of its own.
func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.email=t@example.org", "-c", "user.name=t", "-c", "protocol.file.allow=always"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

const pluginManifest = `{"id":"dev.test.git","name":"Git","version":"1.0.0","escouade":{"api":"1"}}`

// bareRepo makes a bare repository of files and returns its path.
func bareRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	work := filepath.Join(root, "work")
	gitRun(t, root, "init", "-q", work)
	for name, text := range files {
		path := filepath.Join(work, name)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	gitRun(t, work, "add", "-A")
	gitRun(t, work, "commit", "-qm", "plugin")
	bare := filepath.Join(root, "plugin.git")
	gitRun(t, root, "clone", "-q", "--bare", work, bare)
	return bare
}

func TestCloneALocalBareRepositoryAndItsFileURL(t *testing.T) {
	bare := bareRepo(t, map[string]string{"escouade-plugin.json": pluginManifest})
	if !IsGitSource(bare) {
		t.Fatalf("%s is not taken for a git repository", bare)
	}
	home := t.TempDir()
	for _, source := range []string{bare, "file://" + filepath.ToSlash(bare)} {
		dir, err := Clone(context.Background(), home, source, GitOptions{})
		if err != nil {
			t.Fatalf("%s: %v", source, err)
		}
		if !fileExists(filepath.Join(dir, "escouade-plugin.json")) || fileExists(filepath.Join(dir, ".git")) {
			t.Errorf("%s: checkout %s lacks the manifest or keeps .git", source, dir)
		}
		if !strings.HasPrefix(dir, filepath.Join(home, GitDir)) {
			t.Errorf("%s: checked out at %s, outside the home", source, dir)
		}
	}
	assertNoPartial(t, home)
}

func TestCloneRefusesTheTransportsItDoesNotMean(t *testing.T) {
	home := t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	for _, source := range []string{
		"ext::sh -c touch% " + marker,
		"fd::3",
		"ssh://example.org/x.git",
		"git://example.org/x.git",
		"http://127.0.0.1/x.git",
		"https://127.0.0.1/x.git",
		"https://[::1]/x.git",
		"https://10.0.0.8/x.git",
		"https://localhost/x.git",
	} {
		if !IsGitSource(source) {
			t.Errorf("%q is not taken for a git source, so it would not be refused as one", source)
		}
		_, err := Clone(context.Background(), home, source, GitOptions{})
		if err == nil {
			t.Errorf("%q was cloned", source)
			continue
		}
		msg := err.Error()
		local := strings.Contains(msg, "an address of this machine or of the local network")
		refusedKind := strings.Contains(msg, "is never used") || strings.Contains(msg, "is not used")
		if !local && !refusedKind {
			t.Errorf("%q: %q names neither the local network nor the transport", source, msg)
		}
	}
	if fileExists(marker) {
		t.Error("ext:: ran its command")
	}
	assertNoPartial(t, home)
}

// A hostile user configuration (a template with a hook, a hooks path)
// and the repository's own hooks: none runs.
func TestCloneRunsNoHook(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "hook-ran")
	hook := "#!/bin/sh\ntouch " + marker + "\n"
	bare := bareRepo(t, map[string]string{"escouade-plugin.json": pluginManifest})
	for _, name := range []string{"post-checkout", "pre-upload", "post-merge", "reference-transaction"} {
		os.WriteFile(filepath.Join(bare, "hooks", name), []byte(hook), 0o755)
	}
	evil := t.TempDir()
	os.MkdirAll(filepath.Join(evil, "template", "hooks"), 0o755)
	os.WriteFile(filepath.Join(evil, "template", "hooks", "post-checkout"), []byte(hook), 0o755)
	os.MkdirAll(filepath.Join(evil, "hooks"), 0o755)
	os.WriteFile(filepath.Join(evil, "hooks", "post-checkout"), []byte(hook), 0o755)
	config := "[init]\n\ttemplateDir = " + filepath.Join(evil, "template") + "\n[core]\n\thooksPath = " + filepath.Join(evil, "hooks") + "\n"
	os.WriteFile(filepath.Join(evil, ".gitconfig"), []byte(config), 0o644)
	t.Setenv("HOME", evil)
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(evil, ".gitconfig"))
	t.Setenv("GIT_TEMPLATE_DIR", filepath.Join(evil, "template"))
	if _, err := Clone(context.Background(), t.TempDir(), bare, GitOptions{}); err != nil {
		t.Fatal(err)
	}
	if fileExists(marker) {
		t.Fatal("a hook ran during the clone")
	}
}

func TestCloneChecksNoSubmoduleOut(t *testing.T) {
	sub := bareRepo(t, map[string]string{"secret.txt": "from the submodule"})
	root := t.TempDir()
	work := filepath.Join(root, "work")
	gitRun(t, root, "init", "-q", work)
	os.WriteFile(filepath.Join(work, "escouade-plugin.json"), []byte(pluginManifest), 0o644)
	gitRun(t, work, "submodule", "add", "-q", sub, "vendor/sub")
	gitRun(t, work, "add", "-A")
	gitRun(t, work, "commit", "-qm", "with a submodule")
	bare := filepath.Join(root, "plugin.git")
	gitRun(t, root, "clone", "-q", "--bare", work, bare)
	dir, err := Clone(context.Background(), t.TempDir(), bare, GitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if fileExists(filepath.Join(dir, "vendor", "sub", "secret.txt")) {
		t.Fatal("the submodule was checked out")
	}
}

func TestCloneChecksSymbolicLinksOutAsPlainFiles(t *testing.T) {
	bare := bareRepo(t, map[string]string{"escouade-plugin.json": pluginManifest})
	root := t.TempDir()
	work := filepath.Join(root, "w")
	gitRun(t, root, "clone", "-q", bare, work)
	os.Symlink("/etc/passwd", filepath.Join(work, "plugin.wasm"))
	gitRun(t, work, "add", "-A")
	gitRun(t, work, "commit", "-qm", "link")
	gitRun(t, work, "push", "-q", "origin", "HEAD")
	dir, err := Clone(context.Background(), t.TempDir(), bare, GitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Lstat(filepath.Join(dir, "plugin.wasm"))
	if err != nil || info.Mode()&os.ModeSymlink != 0 {
		t.Fatalf("plugin.wasm is checked out as a link (%v, %v)", info, err)
	}
}

func TestARepositoryWithoutAManifestIsRefusedAndLeavesNothing(t *testing.T) {
	bare := bareRepo(t, map[string]string{"README.md": "no plugin here"})
	home := t.TempDir()
	_, err := Clone(context.Background(), home, bare, GitOptions{})
	if err == nil || !strings.Contains(err.Error(), "escouade-plugin.json") {
		t.Fatalf("err = %v, want the manifest's sentence", err)
	}
	assertEmptyGitDir(t, home)
}

// The size bound of the fetch acts, whenever the clone ends: the last
// look after git exits catches what the periodic one did not. The file is
// random, so that its pack is as large as it is.
func TestACloneLargerThanItsBoundIsStoppedAndLeavesNothing(t *testing.T) {
	noise := make([]byte, 64<<10)
	rand.NewChaCha8([32]byte{}).Read(noise)
	bare := bareRepo(t, map[string]string{"escouade-plugin.json": pluginManifest, "big.bin": string(noise)})
	home := t.TempDir()
	_, err := Clone(context.Background(), home, bare, GitOptions{MaxBytes: 16 << 10})
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("err = %v, want the size bound", err)
	}
	assertEmptyGitDir(t, home)
}

func TestAnInstallThatMovedOnPrunesItsOldCheckout(t *testing.T) {
	bare := bareRepo(t, map[string]string{"escouade-plugin.json": pluginManifest})
	home := t.TempDir()
	first, err := Clone(context.Background(), home, bare, GitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(t.TempDir(), "w")
	gitRun(t, filepath.Dir(work), "clone", "-q", bare, work)
	os.WriteFile(filepath.Join(work, "NEWS"), []byte("1.0.1"), 0o644)
	gitRun(t, work, "add", "-A")
	gitRun(t, work, "commit", "-qm", "next")
	gitRun(t, work, "push", "-q", "origin", "HEAD")
	second, err := Clone(context.Background(), home, "file://"+filepath.ToSlash(bare), GitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(first) != filepath.Dir(second) || first == second {
		t.Fatalf("checkouts %s and %s: want two commits of one source", first, second)
	}
	r, _ := Open(home)
	r.Put(Entry{ID: "dev.test.git", Dir: second})
	PruneCheckouts(home, second, r)
	if fileExists(first) || !fileExists(second) {
		t.Errorf("after the prune: old kept %v, new kept %v", fileExists(first), fileExists(second))
	}
}

func assertNoPartial(t *testing.T, home string) {
	t.Helper()
	entries, _ := os.ReadDir(filepath.Join(home, GitDir))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".partial") {
			t.Errorf("a partial clone was left: %s", e.Name())
		}
	}
}

func assertEmptyGitDir(t *testing.T, home string) {
	t.Helper()
	entries, _ := os.ReadDir(filepath.Join(home, GitDir))
	if len(entries) != 0 {
		t.Errorf("left under %s: %v", GitDir, entries)
	}
}

// A .partial- folder a crashed clone left is removed by the next clone
// once it is older than any clone lasts; one as young as a clone under
// way is left alone.
func TestCloneRemovesWhatACrashedCloneLeft(t *testing.T) {
	bare := bareRepo(t, map[string]string{"escouade-plugin.json": pluginManifest})
	home := t.TempDir()
	root := filepath.Join(home, GitDir)
	stale, young := filepath.Join(root, ".partial-stale"), filepath.Join(root, ".partial-young")
	for _, dir := range []string{stale, young} {
		if err := os.MkdirAll(filepath.Join(dir, "work"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * stalePartial)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := Clone(context.Background(), home, bare, GitOptions{}); err != nil {
		t.Fatal(err)
	}
	if fileExists(stale) {
		t.Error("the stale .partial- folder is still there")
	}
	if !fileExists(young) {
		t.Error("a .partial- folder as young as a clone under way was removed")
	}
}
