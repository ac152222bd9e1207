//go:build windows

package harness

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/windows"
)

// openResolved opens resolved; the folders a write needs are made first.
// A folder swapped for a link or a junction meanwhile is caught after the
// open, by the handle's final path (finalPath).
func openResolved(resolved string, write bool) (*os.File, error) {
	if !write {
		return os.Open(resolved)
	}
	if err := os.MkdirAll(filepath.Dir(resolved), 0o755); err != nil {
		return nil, err
	}
	return os.OpenFile(resolved, os.O_WRONLY|os.O_CREATE, 0o644)
}

// volumeNameDOS is VOLUME_NAME_DOS of GetFinalPathNameByHandle: a path
// with a drive letter.
const volumeNameDOS = 0

// finalPath is the path the system gives the open handle, links and
// junctions resolved.
func finalPath(file *os.File) (string, bool) {
	buf := make([]uint16, windows.MAX_LONG_PATH)
	n, err := windows.GetFinalPathNameByHandle(windows.Handle(file.Fd()), &buf[0], uint32(len(buf)), volumeNameDOS)
	if err != nil || int(n) > len(buf) {
		return "", false
	}
	p := windows.UTF16ToString(buf[:n])
	p = strings.TrimPrefix(p, `\\?\UNC\`)
	return strings.TrimPrefix(p, `\\?\`), true
}

// identity is the file's volume and index, and its count of names; its
// change time is unknown, so the link index is built again each time.
func identity(file *os.File) (fileID, uint64, time.Time, error) {
	var d windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(windows.Handle(file.Fd()), &d); err != nil {
		return fileID{}, 0, time.Time{}, err
	}
	return handleID(&d), uint64(d.NumberOfLinks), time.Time{}, nil
}

func handleID(d *windows.ByHandleFileInformation) fileID {
	return fileID{dev: uint64(d.VolumeSerialNumber), ino: uint64(d.FileIndexHigh)<<32 | uint64(d.FileIndexLow)}
}

// infoIdentity opens the file at p to read its identity: a directory
// listing on Windows does not give it.
func infoIdentity(p string, _ fs.FileInfo) (fileID, uint64, bool) {
	f, err := os.Open(p)
	if err != nil {
		return fileID{}, 0, false
	}
	defer f.Close()
	id, links, _, err := identity(f)
	return id, links, err == nil
}
