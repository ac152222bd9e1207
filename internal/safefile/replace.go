package safefile

import (
	"errors"
	"os"
	"path/filepath"
)

// Replace writes data to path through a temporary file beside it (mode
// perm, synced to the disk) renamed over it, so that a reader, or the host
// after a crash, finds the old content or the new, never a part; two
// writers at once each write their own temporary file. The temporary file
// is removed on any failure. The folder must exist.
func Replace(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // fails harmlessly once renamed
	_, err = tmp.Write(data)
	if err = errors.Join(err, tmp.Chmod(perm), tmp.Sync(), tmp.Close()); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
