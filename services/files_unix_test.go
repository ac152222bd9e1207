//go:build unix

package services

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/escouade-dev/escouade-plugin/internal/safefile"
)

// addLinks adds links and a FIFO to a folder made by pluginFolder.
func addLinks(t testing.TB, dir string) {
	t.Helper()
	links := map[string]string{
		"link-inside":       "data/words.txt",
		"link-dir":          "data",
		"link-outside":      "../outside/secret.txt",
		"link-outside-dir":  "../outside",
		"link-abs":          filepath.Join(filepath.Dir(dir), "outside", "secret.txt"),
		"link-abs-inside":   filepath.Join(dir, "notes.md"),
		"link-hidden":       ".env",
		"link-gitdir":       ".git",
		"link-hidden-deep":  "data/.secret",
		"link-manifest":     "escouade-plugin.json",
		"link-chain":        "link-inside",
		"link-chain-hidden": "link-hidden",
		"link-dangling":     "nowhere.txt",
		"link-loop-a":       "link-loop-b",
		"link-loop-b":       "link-loop-a",
		"link-up-in":        "data/../notes.md",
		"link-up-hidden":    "data/../.env",
		"link-self":         ".",
		"link-self-named":   "../plugin/notes.md",
		"data/link-up":      "../notes.md",
		"data/link-escape":  "../../outside/secret.txt",
		"data/link-dot":     "./words.txt",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestReadPluginFileLinks(t *testing.T) {
	dir := pluginFolder(t)
	addLinks(t, dir)
	checkFileCases(t, dir, []fileCase{
		{path: "link-inside", want: "un\ndeux\n"},
		{path: "link-dir/words.txt", want: "un\ndeux\n"},
		{path: "link-chain", want: "un\ndeux\n"},
		{path: "data/link-up", want: "notes é"},
		{path: "link-up-in", want: "notes é"},
		{path: "link-self/notes.md", want: "notes é"},
		{path: "link-outside", wantCode: CodeForbidden, wantReason: `"link-outside": a link whose target leaves the folder`},
		{path: "link-outside-dir/secret.txt", wantCode: CodeForbidden},
		{path: "data/link-escape", wantCode: CodeForbidden},
		{path: "link-self-named", wantCode: CodeForbidden},
		{path: "link-abs", wantCode: CodeForbidden, wantReason: `"link-abs": a link whose target leaves the folder`},
		{path: "link-abs-inside", wantCode: CodeForbidden},
		{path: "link-hidden", wantCode: CodeForbidden, wantReason: `"link-hidden": a link whose target is a hidden name (starting with .)`},
		{path: "link-gitdir/config", wantCode: CodeForbidden},
		{path: "link-hidden-deep", wantCode: CodeForbidden},
		{path: "link-chain-hidden", wantCode: CodeForbidden},
		{path: "link-up-hidden", wantCode: CodeForbidden},
		{path: "data/link-dot", want: "un\ndeux\n"},
		{path: "link-manifest", wantCode: CodeForbidden, wantReason: `"link-manifest": a link whose target is the manifest`},
		{path: "link-self", wantCode: CodeForbidden, wantReason: `"link-self": a link whose target is the folder itself`},
		{path: "link-dangling", wantCode: CodeMissing, wantReason: `"link-dangling": no such file`},
		{path: "link-loop-a", wantCode: CodeForbidden, wantReason: `"link-loop-a": too many links`},
		{path: "fifo", wantCode: CodeFailed, wantReason: `"fifo": not a regular file (p---------)`},
	})
}

// TestOpenFIFODoesNotBlock opens a FIFO the way files/read does, as if one
// had been swapped in after the check: the open must return at once.
func TestOpenFIFODoesNotBlock(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	_, err = safefile.OpenIn(root, "fifo", "fifo", MaxFileBytes)
	r := fileReader{root: root, path: "fifo"}
	want := `"fifo": not a regular file (a named pipe)`
	if refusal := r.unread(err); refusal.Code != CodeFailed || refusal.Reason != want {
		t.Errorf("unread(fifo) = %v, want -32004 %q", refusal, want)
	}
}

func TestLoadProjectConfigFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, ProjectFileName), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadProjectConfig(dir, "dev.escouade.slack"); err == nil {
		t.Error("LoadProjectConfig of a FIFO succeeded")
	}
}

func TestReadPluginFileUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads any file")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "locked.txt")
	if err := os.WriteFile(path, []byte("x"), 0o000); err != nil {
		t.Fatal(err)
	}
	checkFileCases(t, dir, []fileCase{{path: "locked.txt", wantCode: CodeFailed}})
}

// TestReadPluginFileLinkTooLong follows a link whose target names a name
// the system refuses as too long: a failure on the way, never "missing".
func TestReadPluginFileLinkTooLong(t *testing.T) {
	dir := pluginFolder(t)
	if err := os.Symlink(strings.Repeat("b", 300), filepath.Join(dir, "link-long")); err != nil {
		t.Fatal(err)
	}
	checkFileCases(t, dir, []fileCase{
		{path: "link-long", wantCode: CodeForbidden},
	})
}

// TestOpenFailedTooLong classifies the system's "too long" before its
// "missing": a path it cannot look up is not known to be missing.
func TestOpenFailedTooLong(t *testing.T) {
	r := fileReader{path: "x"}
	got := r.openFailed(&fs.PathError{Op: "openat", Path: "x", Err: syscall.ENAMETOOLONG})
	if got.Code != CodeFailed || got.Reason != `"x": a path too long for the system` {
		t.Errorf("openFailed(ENAMETOOLONG) = %d %q, want -32004", got.Code, got.Reason)
	}
}
