//go:build !unix && !windows

package registry

import "os"

// lockFile is a no-op where the system has no file lock: one writer at a
// time is then the app's to keep.
func lockFile(*os.File) error { return nil }

func unlockFile(*os.File) {}
