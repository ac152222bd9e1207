package harness

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/internal/testutil"
)

func TestFence(t *testing.T) {
	w := newWorld(t)
	inner := filepath.Join(w.fence, "inner")
	writeFile(t, filepath.Join(inner, "x"), "x")
	if err := os.Symlink(w.fence, filepath.Join(w.out, "to-fence")); err != nil {
		t.Fatal(err)
	}
	fence, err := NewFence(w.dir, []string{w.fence})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want string // "" allowed, else a part of the error
	}{
		{filepath.Join(w.dir, "a"), ""},
		{filepath.Join(w.out, "new", "deep", "file"), ""},
		{w.fence, "another private project"},
		{filepath.Join(inner, "x"), "another private project"},
		{filepath.Join(inner, "not", "yet"), "another private project"},
		{filepath.Join(w.out, "to-fence", "inner", "x"), "another private project"},
		{w.fence + "-sibling/file", ""},
		{w.dir + "/../fenced/./inner", "another private project"},
		{"relative/path", "not an absolute path"},
		{"", "not an absolute path"},
	}
	if testutil.UnderWine() { // the link to the fence leads nowhere there
		t.Log("under wine, the link row is left out:", testutil.WineLinks)
		tests = slices.DeleteFunc(tests, func(tt struct{ path, want string }) bool {
			return strings.Contains(tt.path, "to-fence")
		})
	}
	for _, tt := range tests {
		_, err := fence.Check(tt.path)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if tt.want == "" && err != nil || tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("Check(%q) = %v, want %q", tt.path, err, tt.want)
		}
	}
	own, _ := NewFence(inner, []string{w.fence})
	if _, err := own.Check(filepath.Join(w.fence, "sibling-of-inner")); err != nil {
		t.Errorf("the agent's own private project is fenced off: %v", err)
	}
	diff(t, "in a private project", []bool{false, true}, []bool{fence.InPrivateProject(), own.InPrivateProject()})
}

func FuzzFenceCheck(f *testing.F) {
	root := f.TempDir()
	own, fenced := filepath.Join(root, "own"), filepath.Join(root, "fenced")
	os.MkdirAll(own, 0o755)
	os.MkdirAll(fenced, 0o755)
	fence, err := NewFence(own, []string{fenced})
	if err != nil {
		f.Fatal(err)
	}
	f.Add("/fenced/a")
	f.Add("/own/../fenced/x")
	f.Add("/./fenced")
	f.Add("/fencedx/y")
	f.Fuzz(func(t *testing.T, rel string) {
		path := root + "/" + rel
		resolved, err := fence.Check(path)
		if err != nil {
			return
		}
		if within(resolved, fenced) {
			t.Fatalf("%q passed the fence as %q", path, resolved)
		}
	})
}
