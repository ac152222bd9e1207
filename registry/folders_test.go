package registry

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// install records a plugin folder in the registry of home, as install does.
func install(t testing.TB, home, id, dir string) {
	t.Helper()
	r, err := Open(home)
	if err != nil {
		t.Fatal(err)
	}
	r.Put(Entry{ID: id, Dir: dir, Version: "1.0.0"})
	if err := r.Save(); err != nil {
		t.Fatal(err)
	}
}

func listed(t *testing.T, f *Folders) []string {
	t.Helper()
	dirs, err := f.List()
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// The installed folders follow the registry from call to call: an install
// made after the first call counts at the next, a damaged registry is an
// error (never an empty list), and a mended one is read again.
func TestFoldersFollowTheRegistry(t *testing.T) {
	home := t.TempDir()
	f := NewFolders(home)
	if got := listed(t, f); len(got) != 0 {
		t.Errorf("no registry: %v", got)
	}
	install(t, home, "dev.a.a", "/p/a")
	if diff := cmp.Diff([]string{"/p/a"}, listed(t, f)); diff != "" {
		t.Errorf("first install (-want +got):\n%s", diff)
	}
	install(t, home, "dev.b.b", "/p/b")
	if diff := cmp.Diff([]string{"/p/a", "/p/b"}, listed(t, f)); diff != "" {
		t.Errorf("an install after the first call (-want +got):\n%s", diff)
	}
	path := filepath.Join(home, FileName)
	good, _ := os.ReadFile(path)
	if err := os.WriteFile(path, []byte("[{nope"), 0o600); err != nil {
		t.Fatal(err)
	}
	if dirs, err := f.List(); err == nil || !strings.Contains(err.Error(), "is damaged") {
		t.Errorf("a damaged registry = %v, %v; want its error", dirs, err)
	}
	if err := os.WriteFile(path, good, 0o600); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"/p/a", "/p/b"}, listed(t, f)); diff != "" {
		t.Errorf("the registry mended (-want +got):\n%s", diff)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if got := listed(t, f); len(got) != 0 {
		t.Errorf("the registry removed: %v", got)
	}
}

// BenchmarkFolders is what fs/* pays per call to know the installed
// folders, 50 plugins installed: "kept" with the registry unchanged since
// the last call, "read" when it changed every time.
func BenchmarkFolders(b *testing.B) {
	home := b.TempDir()
	for i := range 50 {
		install(b, home, "dev.example.p"+strconv.Itoa(i), "/plugins/p"+strconv.Itoa(i))
	}
	b.Run("kept", func(b *testing.B) {
		f := NewFolders(home)
		for b.Loop() {
			if _, err := f.List(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			if _, err := NewFolders(home).List(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
