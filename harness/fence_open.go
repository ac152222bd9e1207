package harness

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/escouade-dev/escouade-plugin/internal/safefile"
)

// errFolderChanged is the error of a path whose folders kept changing
// while the file was being opened (a folder swapped for a link).
var errFolderChanged = errors.New("the folder changed while the file was opened")

// openAttempts bounds the retries of an open that met a link where the
// resolution had found none: a folder can legitimately become a link, but
// not forever.
const openAttempts = 3

// Open opens path behind the fence, for reading, or for writing (creating
// the folders and the file as needed, without truncating it: the caller
// truncates once the file is known to be allowed). It closes the gap
// between Check and the open:
//   - the resolved path is opened one folder at a time without following
//     any link (openat with O_NOFOLLOW; on Windows the handle's final path
//     is checked), so a folder swapped for a link in between is never
//     followed into a fenced folder;
//   - the file opened must not be a fenced file under another name (a hard
//     link): its identity is compared with the fenced files'.
func (f *Fence) Open(path string, write bool) (*os.File, error) {
	for range openAttempts {
		resolved, err := f.Check(path)
		if err != nil {
			return nil, err
		}
		if f.beforeOpen != nil {
			f.beforeOpen()
		}
		file, err := openResolved(resolved, write)
		if errors.Is(err, errFolderChanged) {
			continue // resolve again: the link met may be legitimate
		}
		if err != nil {
			return nil, err
		}
		if err := f.checkOpened(path, file); err != nil {
			file.Close()
			return nil, err
		}
		return file, nil
	}
	return nil, fmt.Errorf("%s: %w", path, errFolderChanged)
}

// checkOpened refuses a file opened through a name outside the fence that
// is a fenced file: its final path (where the system gives one) lies in a
// fenced folder, or it has several names and one is in a fenced folder.
func (f *Fence) checkOpened(path string, file *os.File) error {
	if final, ok := finalPath(file); ok && f.fenced(final) {
		return fmt.Errorf("%s: %w", path, ErrFenced)
	}
	id, links, changed, err := identity(file)
	if err != nil {
		return err
	}
	if links > 1 && f.links.holds(f.enforced(), id, changed) {
		return fmt.Errorf("%s: %w", path, ErrFenced)
	}
	return nil
}

// fenced tells whether a resolved path lies in a folder fenced for the
// agent.
func (f *Fence) fenced(resolved string) bool {
	for _, dir := range f.enforced() {
		if within(resolved, dir) {
			return true
		}
	}
	return false
}

// enforced lists the fenced folders that hold for the agent: not the
// private project it works in.
func (f *Fence) enforced() []string {
	var dirs []string
	for _, dir := range f.private {
		if !within(f.own, dir) {
			dirs = append(dirs, dir)
		}
	}
	return dirs
}

// fileID is what tells two names of one file apart from two files.
type fileID = safefile.FileID

// identity is the file's id, its count of names, and when its inode last
// changed (zero when unknown). Where the system gives no identity the
// file counts as having one name: there is no link index to ask.
func identity(file *os.File) (fileID, uint64, time.Time, error) {
	info, err := file.Stat()
	if err != nil {
		return fileID{}, 0, time.Time{}, err
	}
	id, links, err := safefile.Identity(file, info)
	if errors.Is(err, errors.ErrUnsupported) {
		return fileID{}, 1, time.Time{}, nil
	}
	return id, links, changeTime(info), err
}

// linkIndex knows the files of the fenced folders that have more than one
// name, the only ones a name outside can reach. It is built when first
// needed and built again when a file asked about changed (ctime: making a
// link changes it) since, or when its change time is unknown.
type linkIndex struct {
	mu    sync.Mutex
	built time.Time
	ids   map[fileID]bool
}

// linkSlack covers the coarse clock of file change times: a change within
// this long before the index was built may not be in it.
const linkSlack = time.Second

func (x *linkIndex) holds(dirs []string, id fileID, changed time.Time) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.ids == nil || changed.IsZero() || !changed.Before(x.built.Add(-linkSlack)) {
		x.built = time.Now()
		x.ids = linkedFiles(dirs)
	}
	return x.ids[id]
}

// linkedFiles walks dirs for the files with several names. Unreadable
// parts are skipped: what the host cannot list, it cannot compare.
func linkedFiles(dirs []string) map[fileID]bool {
	ids := map[fileID]bool{}
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return nil
			}
			if info, err := d.Info(); err == nil {
				if id, links, err := safefile.IdentityAt(p, info); err == nil && links > 1 {
					ids[id] = true
				}
			}
			return nil
		})
	}
	return ids
}
