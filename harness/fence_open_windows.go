//go:build windows

package harness

import (
	"os"
	"path/filepath"
	"strings"

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
