package registry

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path/filepath"
	"strconv"

	"github.com/escouade-dev/escouade-plugin/internal/safefile"
)

// A checkout is held to the bounds of a plugin's folder twice: git's
// listing of the fetched tree is counted before a file is written, and the
// checkout itself is watched, since what git writes may be larger than
// its tree says (a working-tree-encoding attribute makes a file of UTF-8
// four times larger in UTF-32).

// folderBounds are the bounds a checkout is held to.
type folderBounds struct{ files, bytes int64 }

func boundsOf(o GitOptions) folderBounds {
	b := folderBounds{files: o.MaxFiles, bytes: o.MaxDiskBytes}
	if b.files <= 0 {
		b.files = MaxFolderFiles
	}
	if b.bytes <= 0 {
		b.bytes = MaxFolderBytes
	}
	return b
}

// folderUsage is what a folder holds, counted as the bounds count it.
type folderUsage struct{ files, bytes int64 }

// add counts one file of size bytes, or a folder (size 0).
func (u *folderUsage) add(size int64) {
	u.files++
	u.bytes += min(AllocatedBytes(size), math.MaxInt64-u.bytes)
}

// past says which bound u passes, as the end of a sentence, or "".
func (u folderUsage) past(b folderBounds) string {
	switch {
	case u.files > b.files:
		return fmt.Sprintf("more than %d files and folders, the most a plugin's folder may hold", b.files)
	case u.bytes > b.bytes:
		return fmt.Sprintf("more than %s (each file and folder counted as at least %s), the most a plugin's folder may take", safefile.LimitText(b.bytes), safefile.LimitText(FolderBlock))
	}
	return ""
}

// boundRefusal is a repository fetched but refused for what its checkout
// would write: nothing of it is installed.
type boundRefusal struct{ reason string }

func (e *boundRefusal) Error() string { return e.reason }

// checkTree counts what checking out HEAD of work would write, from git's
// listing of its tree, and refuses it past b before a file is written.
// The count stops at the bound: a tree that reuses one subtree a thousand
// times, itself of a thousand, is never listed to its end.
func checkTree(ctx context.Context, empty string, src gitSource, work string, b folderBounds) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := gitCommand(ctx, empty, append(gitConfig(empty, src, ""), "-C", work, "ls-tree", "-r", "-t", "-l", "-z", "HEAD")...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("git cannot be run (%v): install git", err)
	}
	refusal, err := tallyTree(out, b)
	if refusal != "" || err != nil {
		cancel() // its listing is not read to the end: git is stopped
	}
	waited := cmd.Wait()
	switch {
	case refusal != "":
		return &boundRefusal{"its tree holds " + refusal}
	case err != nil:
		return err
	case waited != nil:
		return fmt.Errorf("git ls-tree: %v", waited)
	}
	return nil
}

// maxTreeRecord is the longest record of git's listing read: a path that
// long cannot be checked out on any system anyway.
const maxTreeRecord = 64 << 10

// tallyTree reads the records of `git ls-tree -r -t -l -z` until their
// end or until they pass b, and returns the bound passed, or "".
func tallyTree(r io.Reader, b folderBounds) (string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxTreeRecord)
	sc.Split(splitNUL)
	var u folderUsage
	for sc.Scan() {
		size, err := treeRecordSize(sc.Bytes())
		if err != nil {
			return "", err
		}
		u.add(size)
		if past := u.past(b); past != "" {
			return past, nil
		}
	}
	if errors.Is(sc.Err(), bufio.ErrTooLong) {
		return fmt.Sprintf("a path longer than %d bytes", maxTreeRecord), nil
	}
	return "", sc.Err()
}

func splitNUL(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// treeRecordSize is the size a record of the listing writes:
// "<mode> <type> <object> <size>\t<path>", the size "-" for a folder
// ("tree") and a submodule ("commit", checked out as an empty folder).
// The path, the repository's, is not read.
func treeRecordSize(rec []byte) (int64, error) {
	head, _, ok := bytes.Cut(rec, []byte{'\t'})
	fields := bytes.Fields(head)
	if !ok || len(fields) != 4 {
		return 0, fmt.Errorf("git ls-tree: a record %q is not <mode> <type> <object> <size>", head)
	}
	switch string(fields[1]) {
	case "tree", "commit":
		return 0, nil
	case "blob":
		size, err := strconv.ParseInt(string(fields[3]), 10, 64)
		if err != nil || size < 0 {
			return 0, fmt.Errorf("git ls-tree: a blob of size %q", fields[3])
		}
		return size, nil
	}
	return 0, fmt.Errorf("git ls-tree: an entry of type %q", fields[1])
}

// checkoutBounded checks HEAD out into work, watched: git is stopped once
// the work tree passes b, and the tree is looked at once more when git
// exits, for what it wrote between two looks.
func checkoutBounded(ctx context.Context, empty string, src gitSource, work string, b folderBounds) error {
	check := func() error {
		if past := workUsage(work, b).past(b); past != "" {
			return &boundRefusal{"its checkout holds " + past}
		}
		return nil
	}
	args := append(gitConfig(empty, src, ""), "-C", work, "checkout", "--quiet", "--force", "HEAD")
	if err := runGit(ctx, empty, check, args...); err != nil {
		return err
	}
	return check()
}

// workUsage counts the files and folders of work but its .git, and stops
// once they pass b: a watch of a tree too large costs no more than the
// bound.
func workUsage(work string, b folderBounds) folderUsage {
	var u folderUsage
	gitDir := filepath.Join(work, ".git")
	walkFolder(work, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil || path == work:
			return nil
		case path == gitDir:
			return fs.SkipDir
		}
		var size int64
		if !d.IsDir() {
			if info, err := d.Info(); err == nil {
				size = info.Size()
			}
		}
		u.add(size)
		if u.past(b) != "" {
			return fs.SkipAll
		}
		return nil
	})
	return u
}
