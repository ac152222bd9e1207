//go:build !unix && !windows

package registry

import "os"

// lockFD is a no-op where the system has no file lock: one writer at a
// time is then the app's to keep (the process's own mutex still holds).
func lockFD(*os.File, bool) error { return nil }

func unlockFile(*os.File) {}
