package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Replace writes data to path through a temporary file beside it (mode
// perm, synced to the disk) renamed over it, then syncs the folder, so
// that a reader, or the host after a crash or a power loss, finds the old
// content or the new, never a part; two writers at once each write their
// own temporary file. The temporary file is removed on any failure, and
// an error names path, the file the person knows, not the temporary one.
// The folder must exist.
func Replace(path string, data []byte, perm os.FileMode) error {
	removeStaleTemporaries(path)
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return named(path, err)
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	_, err = tmp.Write(data)
	if err = errors.Join(err, tmp.Chmod(perm), tmp.Sync(), tmp.Close()); err != nil {
		return named(path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return named(path, err)
	}
	return syncFolder(filepath.Dir(path))
}

// staleAfter is the age past which a temporary file of Replace is a kill's
// leftover: a write lasts milliseconds.
const staleAfter = time.Hour

// removeStaleTemporaries removes, in the folder of path, the temporary
// files of Replace that a kill left, of any file of the folder: a file
// written under a new name each time (a consent record named by its
// digest) would never be written again under the name of its leftover.
// Replace writes only in folders of the host's own, where no other file
// is named as its temporary files are.
func removeStaleTemporaries(path string) {
	names, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*"))
	for _, name := range names {
		if !IsTemporary(filepath.Base(name)) {
			continue
		}
		if info, err := os.Lstat(name); err == nil && info.Mode().IsRegular() && time.Since(info.ModTime()) > staleAfter {
			_ = os.Remove(name)
		}
	}
}

// IsTemporary tells a temporary file of Replace by its name:
// ".<name>.<digits>", as os.CreateTemp makes it from "."+name+".*".
func IsTemporary(name string) bool {
	rest, ok := strings.CutPrefix(name, ".")
	i := strings.LastIndexByte(rest, '.')
	return ok && i > 0 && i < len(rest)-1 && strings.Trim(rest[i+1:], "0123456789") == ""
}

// named is err said of path: the system's reason without the temporary
// file's name it carries.
func named(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		err = le.Err
	}
	return fmt.Errorf("%s: %w", path, err)
}

// syncFolder makes a rename in dir survive a power loss. Windows has no
// sync of a folder (its renames are journaled by NTFS).
func syncFolder(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return named(dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		return named(dir, err)
	}
	return nil
}
