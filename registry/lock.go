package registry

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// lockName is the file under the home whose lock every change of the
// registry and of a folder record holds: two writers (two terminals, the
// view and the CLI, an app and the CLI) each read, change and write the
// whole file, and without it the second write erases the first's change.
const lockName = "plugins.lock"

// homeLocks holds one mutex per home for the goroutines of this process:
// the system's lock is per open file, which keeps two goroutines apart on
// a local disk, but where it falls back to a lock per process (flock over
// NFS) it would not.
var homeLocks sync.Map // cleaned home → *sync.Mutex

func homeMutex(home string) *sync.Mutex {
	mu, _ := homeLocks.LoadOrStore(filepath.Clean(home), new(sync.Mutex))
	return mu.(*sync.Mutex)
}

// Lock takes the home's registry lock, waiting for another process or
// goroutine that holds it; unlock gives it back. The lock is the system's
// (flock, LockFileEx): a process killed while holding it holds it no
// longer.
func Lock(home string) (unlock func(), err error) {
	mu := homeMutex(home)
	mu.Lock()
	f, err := lockFile(home, true)
	if err != nil {
		mu.Unlock()
		return nil, err
	}
	return func() {
		unlockFile(f)
		f.Close()
		mu.Unlock()
	}, nil
}

// TryLock takes the home's lock if no one holds it, and reports whether
// it did: for a write that may be skipped (a cache), never waited for.
func TryLock(home string) (unlock func(), ok bool) {
	mu := homeMutex(home)
	if !mu.TryLock() {
		return nil, false
	}
	f, err := lockFile(home, false)
	if err != nil {
		mu.Unlock()
		return nil, false
	}
	return func() {
		unlockFile(f)
		f.Close()
		mu.Unlock()
	}, true
}

// lockFile opens the home's lock file and locks it, waiting or not.
func lockFile(home string, wait bool) (*os.File, error) {
	if err := os.MkdirAll(home, dirMode); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(home, lockName), os.O_RDWR|os.O_CREATE, fileMode)
	if err != nil {
		return nil, err
	}
	if err := lockFD(f, wait); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: cannot take the lock of the installed plugins: %w", f.Name(), err)
	}
	return f, nil
}

// withLock runs f with the home's lock held.
func withLock(home string, f func() error) error {
	unlock, err := Lock(home)
	if err != nil {
		return err
	}
	defer unlock()
	return f()
}

// Update changes the registry of home under its lock: it reads it, lets
// change change it, and writes it back when change returns nil. Every
// read-change-write of plugins.json goes through it, so no change
// acknowledged to the user is lost to another writer's.
func Update(home string, change func(*Registry) error) error {
	return withLock(home, func() error {
		r, err := Open(home)
		if err != nil {
			return err
		}
		if err := change(r); err != nil {
			return err
		}
		return r.Save()
	})
}

// Change changes the entry of id under the home's lock (Update) and
// returns it as recorded; an id not installed is an error that says so.
func Change(home, id string, change func(*Entry) error) (Entry, error) {
	var en Entry
	err := Update(home, func(r *Registry) error {
		var ok bool
		if en, ok = r.Get(id); !ok {
			return fmt.Errorf("no installed plugin %s (escouade-plugin list shows them)", id)
		}
		if err := change(&en); err != nil {
			return err
		}
		r.Put(en)
		return nil
	})
	return en, err
}

// Uninstall forgets the plugin id, then its folder records, under the
// home's lock. Its folder, settings and journal stay.
func Uninstall(home, id string) error {
	return withLock(home, func() error {
		r, err := Open(home)
		if err != nil {
			return err
		}
		if _, ok := r.Get(id); !ok {
			return fmt.Errorf("no installed plugin %s (escouade-plugin list shows them)", id)
		}
		r.Remove(id)
		if err := r.Save(); err != nil {
			return err
		}
		ForgetFolder(home, id, "")
		return nil
	})
}
