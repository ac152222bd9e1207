package safefile

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestReplaceLeavesOneFile: the new content is in place with its mode,
// and no temporary file is left beside it, after a success or a failure.
func TestReplaceLeavesOneFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "plugins.json")
	for _, content := range []string{"old\n", "new\n"} {
		if err := Replace(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "new\n" {
		t.Errorf("content %q, %v; want the new one", got, err)
	}
	if info, err := os.Stat(path); err == nil && runtime.GOOS != "windows" && info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", info.Mode().Perm())
	}
	if err := Replace(filepath.Join(dir, "missing", "f"), []byte("x"), 0o600); err == nil {
		t.Error("Replace into a missing folder succeeded")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the folder holds %d entries, want only the file", len(entries))
	}
}

// A write that fails is said of the file the person knows, not of the
// temporary file beside it.
func TestReplaceNamesTheFileNotItsTemporary(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "plugins.json")
	err := Replace(path, []byte("[]"), 0o600)
	if err == nil || !strings.HasPrefix(err.Error(), path+": ") || strings.Contains(err.Error(), ".plugins.json.") {
		t.Errorf("Replace into a missing folder = %v, want the error said of %s", err, path)
	}
}

// The temporary files a kill left beside a file are removed at its next
// write once older than any write lasts; a fresh one (a write under way)
// is kept.
func TestReplaceRemovesStaleTemporaries(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "plugins.json")
	old := filepath.Join(dir, ".plugins.json.111")
	fresh := filepath.Join(dir, ".plugins.json.222")
	for _, p := range []string{old, fresh} {
		os.WriteFile(p, []byte("x"), 0o600)
	}
	long := time.Now().Add(-2 * staleAfter)
	os.Chtimes(old, long, long)
	if err := Replace(path, []byte("[]"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); err == nil {
		t.Error("a kill's leftover stays")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("a write under way lost its temporary file: %v", err)
	}
}

// The sweep covers the whole folder: the leftover of a file written under
// a new name each time (a consent record named by its digest) goes at the
// write of any file beside it; a file that is no temporary one stays.
func TestReplaceSweepsTheFolder(t *testing.T) {
	dir := t.TempDir()
	long := time.Now().Add(-2 * staleAfter)
	leftover := filepath.Join(dir, ".dev.x.0a1b.json.4242")
	kept := []string{filepath.Join(dir, ".config"), filepath.Join(dir, ".notes.v2"), filepath.Join(dir, "x.json.4242")}
	for _, p := range append(kept, leftover) {
		os.WriteFile(p, []byte("x"), 0o600)
		os.Chtimes(p, long, long)
	}
	if err := Replace(filepath.Join(dir, "dev.x.9f8e.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(leftover); err == nil {
		t.Error("the leftover of another file of the folder stays")
	}
	for _, p := range kept {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s, no temporary file, was removed", p)
		}
	}
}

func TestIsTemporary(t *testing.T) {
	for name, want := range map[string]bool{
		".plugins.json.123": true, ".secrets.enc.key.9": true,
		"plugins.json.123": false, ".plugins.json": false, ".plugins.json.": false, ".x.12a": false, "..12": false,
	} {
		if got := IsTemporary(name); got != want {
			t.Errorf("IsTemporary(%q) = %v, want %v", name, got, want)
		}
	}
}
