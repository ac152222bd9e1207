package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/escouade-dev/escouade-plugin/internal/safefile"
)

// Tree is a folder's content as fingerprinted: each file and link by its
// path in the folder ("/"-separated). Folders are not entries: an empty
// one runs nothing.
type Tree map[string]TreeFile

// TreeFile is one entry of a Tree: what it is (Kind), and for a regular
// file its permission bits, size and SHA-256, for a link its target. The
// stat fields are a cache, not part of what was consented to: an entry
// whose identity, size and times are the same as when it was hashed is
// not read again (git's index does the same).
type TreeFile struct {
	Kind string      `json:"kind,omitempty"` // "" a regular file, or "link"
	Perm fs.FileMode `json:"perm,omitempty"`
	Size int64       `json:"size,omitempty"`
	Sum  string      `json:"sum,omitempty"` // hex SHA-256, or a link's target

	Stat fileStat `json:"stat"`
}

// fileStat is what a file's stat says of it: when all of it is as it was
// and the file was not changed in the moment it was hashed, its content
// is what was hashed.
type fileStat struct {
	Dev, Ino uint64
	MtimeNs  int64 `json:"mtime"`
	CtimeNs  int64 `json:"ctime"`
}

const kindLink = "link"

// same reports whether a and b are the same thing, the stat cache aside.
func (a TreeFile) same(b TreeFile) bool {
	return a.Kind == b.Kind && a.Perm == b.Perm && a.Size == b.Size && a.Sum == b.Sum
}

// racyMargin is how close to the moment a tree was recorded a file's
// times may be for its stat to be trusted: a file written in the same
// tick of a coarse clock as the record could have changed after it
// (git's "racily clean" entries).
const racyMargin = 2 * time.Second

// ReadTree fingerprints dir: every regular file hashed, unless cached
// holds it with the same stat, recorded at least racyMargin after its
// last change (cachedAt, Unix ns). An error names the bound passed or the
// file that could not be read.
func ReadTree(dir string, cached Tree, cachedAt int64) (Tree, error) {
	// The folder as the system finds it: a folder given through a link is
	// walked, not recorded as one link.
	dir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	t := Tree{}
	var total int64
	entries := 0
	err = walkFolder(dir, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // gone between the listing and its look: absent
		}
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		// Folders count as entries and blocks as files do, as for an
		// install from git (bounds.go); they are not entries of the tree.
		if entries++; entries > MaxFolderFiles {
			return fmt.Errorf("its folder holds more than %d files and folders, the most a process plugin's folder may hold", MaxFolderFiles)
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		// Counted before it is read: a sparse giant costs no read.
		if total = min(total+allocated(info), MaxFolderBytes+1); total > MaxFolderBytes {
			return fmt.Errorf("its folder takes more than %s (each file and folder counted as at least 4 KiB), the most a process plugin's folder may take", safefile.LimitText(MaxFolderBytes))
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if err := contained(dir, p, rel, info.Mode()); err != nil {
			return err
		}
		f, err := treeFile(p, rel, info, cached[rel], cachedAt)
		if err != nil {
			return err
		}
		t[rel] = f
		return nil
	})
	return t, err
}

// contained refuses what a folder's record cannot hold: a link whose
// target leaves the folder (what it points to could change with nothing
// of the folder changing) and anything but a file, a folder or a link (a
// named pipe an interpreter reads is fed by whoever writes it).
func contained(dir, p, rel string, mode fs.FileMode) error {
	switch {
	case mode&fs.ModeSymlink != 0:
		target, err := os.Readlink(p)
		if err != nil {
			return err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(p), target)
		}
		if resolved, err := filepath.EvalSymlinks(p); err == nil {
			target = resolved
		}
		if !within(dir, target) {
			return fmt.Errorf("its link %s points outside its folder: what it points to is not part of what you would agree to (fix: copy the file into the folder)", rel)
		}
	case !mode.IsRegular() && !mode.IsDir():
		return fmt.Errorf("%s is %s: a process plugin's folder holds only files, folders and links within it", rel, safefile.Describe(mode))
	}
	return nil
}

// within reports whether path is dir or under it, lexically.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, filepath.Clean(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// allocated is what an entry is counted to take on disk.
func allocated(info fs.FileInfo) int64 {
	if info.Mode().IsRegular() {
		return AllocatedBytes(info.Size())
	}
	return FolderBlock
}

// treeFile is the entry of the file at p (rel in its folder), read from
// cached when its stat says it is unchanged.
func treeFile(p, rel string, info fs.FileInfo, cached TreeFile, cachedAt int64) (TreeFile, error) {
	st := statOf(p, info)
	f := TreeFile{Stat: st}
	switch mode := info.Mode(); {
	case mode&fs.ModeSymlink != 0:
		target, err := os.Readlink(p)
		f.Kind, f.Sum = kindLink, target
		return f, err
	case !mode.IsRegular():
		return f, fmt.Errorf("%s is %s", rel, safefile.Describe(mode)) // contained refused it first
	default:
		f.Perm, f.Size = mode.Perm(), info.Size()
	}
	if cached.Kind == "" && cached.Sum != "" && cached.Stat == st && cached.Size == f.Size && cached.Perm == f.Perm && !racy(st, cachedAt) {
		f.Sum = cached.Sum
		return f, nil
	}
	filesHashed.Add(1)
	sum, err := fileSHA256(filepath.Dir(p), filepath.Base(p), MaxFolderBytes)
	if err != nil {
		var se *safefile.Error
		if errors.As(err, &se) {
			se.Name = rel
		}
		return f, err
	}
	f.Sum = sum
	return f, nil
}

// filesHashed counts the files ReadTree read, so that a test sees which
// of the stat cache and the hash acted.
var filesHashed atomic.Int64

// racy reports whether a file's stat cannot vouch for its content: its
// stat is unknown, or it changed within racyMargin of the record.
func racy(st fileStat, cachedAt int64) bool {
	if st.Ino == 0 && st.MtimeNs == 0 {
		return true
	}
	last := max(st.MtimeNs, st.CtimeNs)
	return last >= cachedAt-int64(racyMargin)
}

// Difference is the first difference between two trees, in path order:
// "its file notes.py changed", "a file lib/x.py was added", "its file
// data.txt was removed"; "" when they hold the same files.
func Difference(was, now Tree) string {
	paths := make([]string, 0, len(was)+len(now))
	for p := range was {
		paths = append(paths, p)
	}
	for p := range now {
		if _, ok := was[p]; !ok {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	for _, p := range paths {
		a, hadIt := was[p]
		b, hasIt := now[p]
		switch {
		case !hadIt:
			return fmt.Sprintf("%s %s was added", article(b), p)
		case !hasIt:
			return fmt.Sprintf("its %s %s was removed", noun(a), p)
		case !a.same(b):
			return fmt.Sprintf("its %s %s changed", noun(a), p)
		}
	}
	return ""
}

func noun(f TreeFile) string {
	if f.Kind == "" {
		return "file"
	}
	return f.Kind
}

func article(f TreeFile) string {
	return "a " + noun(f)
}

// Digest is one SHA-256 of what t holds, the stat cache aside: the same
// files give the same digest, whatever their stat.
func (t Tree) Digest() string {
	h := sha256.New()
	for _, p := range slices.Sorted(maps.Keys(t)) {
		f := t[p]
		fmt.Fprintf(h, "%q %q %o %d %q\n", p, f.Kind, f.Perm, f.Size, f.Sum)
	}
	return hex.EncodeToString(h.Sum(nil))
}
