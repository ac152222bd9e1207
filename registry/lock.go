package registry

import (
	"fmt"
	"os"
	"path/filepath"
)

// lockName is the file under the home whose lock every change of the
// registry and of a folder record holds: two writers (two terminals, the
// view and the CLI, an app and the CLI) each read, change and write the
// whole file, and without it the second write erases the first's change.
const lockName = "plugins.lock"

// Lock takes the home's registry lock, waiting for another process or
// goroutine that holds it; unlock gives it back. The lock is the system's
// (flock, LockFileEx): a process killed while holding it holds it no
// longer.
func Lock(home string) (unlock func(), err error) {
	if err := os.MkdirAll(home, dirMode); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(home, lockName), os.O_RDWR|os.O_CREATE, fileMode)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: cannot take the lock of the installed plugins: %w", f.Name(), err)
	}
	return func() {
		unlockFile(f)
		f.Close()
	}, nil
}

// Update changes the registry of home under its lock: it reads it, lets
// change change it, and writes it back when change returns nil. Every
// read-change-write of plugins.json goes through it, so no change
// acknowledged to the user is lost to another writer's.
func Update(home string, change func(*Registry) error) error {
	unlock, err := Lock(home)
	if err != nil {
		return err
	}
	defer unlock()
	r, err := Open(home)
	if err != nil {
		return err
	}
	if err := change(r); err != nil {
		return err
	}
	return r.Save()
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

// Uninstall forgets the plugin id and its folder record, under the home's
// lock. Its folder, settings and journal stay.
func Uninstall(home, id string) error {
	return Update(home, func(r *Registry) error {
		if _, ok := r.Get(id); !ok {
			return fmt.Errorf("no installed plugin %s (escouade-plugin list shows them)", id)
		}
		r.Remove(id)
		ForgetFolder(home, id)
		return nil
	})
}
