package registry

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// Folders gives the folders of the plugins installed under a home, for a
// fence that keeps every plugin out of the others' (fs/*,
// docs/protocol.md#fs-plugin-folders). The registry is read again only
// when its file changed (another file, size or time: Save replaces it
// whole, so each save is another file), so an install made while the
// host runs counts at the next call, and a call between two saves pays
// one stat.
type Folders struct {
	path string

	mu   sync.Mutex
	seen os.FileInfo // the registry file the list was read from; nil: none yet
	dirs []string
}

// NewFolders gives the installed folders of home.
func NewFolders(home string) *Folders {
	return &Folders{path: filepath.Join(home, FileName)}
}

// List gives the folder of every installed plugin, as recorded. No
// registry file is no plugin; a registry that cannot be read is an error,
// which the fence must take as a refusal.
func (f *Folders) List() ([]string, error) {
	info, err := os.Stat(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.seen != nil && sameVersion(f.seen, info) {
		return f.dirs, nil
	}
	// Read after the stat: what is read is at least as new as the file
	// stated, so the list is never older than the key it is kept under.
	r, err := Open(filepath.Dir(f.path))
	if err != nil {
		return nil, err
	}
	dirs := make([]string, 0, len(r.entries))
	for _, e := range r.List() {
		if e.Dir != "" {
			dirs = append(dirs, e.Dir)
		}
	}
	f.seen, f.dirs = info, dirs
	return dirs, nil
}

func sameVersion(a, b os.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}
