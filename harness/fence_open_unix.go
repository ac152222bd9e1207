//go:build unix

package harness

import (
	"errors"
	"io/fs"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// openResolved opens resolved (absolute, clean, no link in the part that
// existed) from the root one name at a time, following no link: a link
// met there is a folder changed since the resolution. For a write, the
// missing folders are made on the way and the file is created, never
// truncated.
func openResolved(resolved string, write bool) (*os.File, error) {
	names := strings.Split(strings.TrimPrefix(resolved, "/"), "/")
	dir, err := unix.Open("/", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: resolved, Err: err}
	}
	for _, name := range names[:len(names)-1] {
		next, err := openDir(dir, name, write)
		unix.Close(dir)
		if err != nil {
			return nil, openError(resolved, err)
		}
		dir = next
	}
	// Non-blocking for the open only: a FIFO (for reading or writing)
	// must not hang the session; the caller refuses what is not a file.
	flags := unix.O_RDONLY | unix.O_NONBLOCK
	if write {
		flags = unix.O_WRONLY | unix.O_CREAT | unix.O_NONBLOCK
	}
	fd, err := unix.Openat(dir, names[len(names)-1], flags|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	unix.Close(dir)
	if err != nil {
		return nil, openError(resolved, err)
	}
	unix.SetNonblock(fd, false) // regular files never wait anyway
	return os.NewFile(uintptr(fd), resolved), nil
}

// openDir opens the folder name of dir without following a link, making
// it first when write asks and it is missing.
func openDir(dir int, name string, write bool) (int, error) {
	const flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	fd, err := unix.Openat(dir, name, flags, 0)
	if errors.Is(err, unix.ENOENT) && write {
		if err = unix.Mkdirat(dir, name, 0o755); err == nil || errors.Is(err, unix.EEXIST) {
			fd, err = unix.Openat(dir, name, flags, 0)
		}
	}
	return fd, err
}

// openError names a link met on the way as a changed folder, and keeps
// the system's words otherwise ("open <path>: no such file or directory").
func openError(resolved string, err error) error {
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) && isLink(resolved) {
		return errFolderChanged
	}
	return &fs.PathError{Op: "open", Path: resolved, Err: err}
}

// isLink tells whether some existing prefix of path is now a link.
func isLink(path string) bool {
	for p := path; p != "/" && p != "."; p = parentOf(p) {
		if info, err := os.Lstat(p); err == nil && info.Mode()&fs.ModeSymlink != 0 {
			return true
		}
	}
	return false
}

func parentOf(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/"
	}
	return p[:i]
}

// finalPath: a Unix file opened without following links is where its
// resolved path says; hard links are what identity is for.
func finalPath(*os.File) (string, bool) { return "", false }
