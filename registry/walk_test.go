package registry

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/escouade-dev/escouade-plugin/internal/testutil"
)

// visits lists what a walk gives fn, in order of names, with fn's
// answers from decide.
func visits(t *testing.T, walk func(string, fs.WalkDirFunc) error, root string, decide func(rel string, d fs.DirEntry) error) ([]string, error) {
	t.Helper()
	var seen []string
	err := walk(root, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(root, p)
		if err != nil {
			seen = append(seen, rel+" error")
			return err
		}
		seen = append(seen, rel)
		return decide(rel, d)
	})
	slices.Sort(seen)
	return seen, err
}

// walkFolder visits what filepath.WalkDir visits, and answers to SkipDir,
// SkipAll and an error as it does.
func TestWalkFolderIsWalkDir(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"a/x", "a/y", "b/c/z", "d", "skip/w", "e/f/g"} {
		p := filepath.Join(root, filepath.FromSlash(f))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, nil, 0o644)
	}
	os.Symlink("a", filepath.Join(root, "link"))
	stop := errors.New("stop")
	for name, decide := range map[string]func(string, fs.DirEntry) error{
		"all":       func(string, fs.DirEntry) error { return nil },
		"skip dir":  func(rel string, _ fs.DirEntry) error { return map[bool]error{true: fs.SkipDir}[rel == "skip"] },
		"skip file": func(rel string, _ fs.DirEntry) error { return map[bool]error{true: fs.SkipDir}[rel == "a/x"] },
		"error":     func(rel string, _ fs.DirEntry) error { return map[bool]error{true: stop}[rel == "b/c"] },
		"skip all":  func(rel string, _ fs.DirEntry) error { return map[bool]error{true: fs.SkipAll}[rel == "."] },
	} {
		want, wantErr := visits(t, filepath.WalkDir, root, decide)
		got, gotErr := visits(t, walkFolder, root, decide)
		if name == "error" || name == "skip file" {
			// After an error, or a file's SkipDir, which entries came
			// first depends on the system's order: a/y may come before
			// a/x, and b/c may be reached first or last.
			drop := func(list []string) []string {
				return slices.DeleteFunc(slices.Clone(list), func(e string) bool { return e == "a/y" || name == "error" })
			}
			if gotErr != wantErr || slices.Contains(got, "b/c/z") && name == "error" || !slices.Equal(drop(got), drop(want)) {
				t.Errorf("%s: walkFolder gave %q, %v; WalkDir %q, %v", name, got, gotErr, want, wantErr)
			}
			continue
		}
		if !slices.Equal(got, want) || gotErr != wantErr {
			t.Errorf("%s: walkFolder gave %q, %v; WalkDir %q, %v", name, got, gotErr, want, wantErr)
		}
	}
	if _, err := visits(t, walkFolder, filepath.Join(root, "absent"), func(string, fs.DirEntry) error { return nil }); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a root that is not there: %v", err)
	}
}

// A folder of many entries is refused at the bound after one batch past
// it, not listed whole first: what the walk allocates follows the bound,
// not the folder (filepath.WalkDir, measured beside it, reads it all).
func TestWalkFolderStopsAtTheBoundWithoutListingTheRest(t *testing.T) {
	if testing.Short() {
		t.Skip("makes 20,000 files")
	}
	root := t.TempDir()
	files, bound := 20000, 200
	if testutil.UnderWine() {
		// wine makes a file in about 4 ms, and Windows reads a folder in
		// larger buffers: 10,000 files still hold the ratio below (one
		// batch against the whole folder) in a third of the time.
		files = 10000
	}
	for i := range files {
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("f%05d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bounded := func(walk func(string, fs.WalkDirFunc) error) (seen int, allocated uint64) {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		walk(root, func(string, fs.DirEntry, error) error {
			if seen++; seen > bound {
				return errors.New("past the bound")
			}
			return nil
		})
		runtime.ReadMemStats(&after)
		return seen, after.TotalAlloc - before.TotalAlloc
	}
	seen, ours := bounded(walkFolder)
	_, whole := bounded(filepath.WalkDir)
	if seen != bound+1 {
		t.Errorf("the walk went on past its bound: %d entries seen", seen)
	}
	if ours*10 > whole {
		t.Errorf("walkFolder allocated %d bytes to stop at %d entries, WalkDir %d: the folder was listed whole", ours, bound, whole)
	}
}
