//go:build windows

package safefile

import (
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

// identity reads the handle: a Stat on Windows gives neither the file's
// index nor its count of names.
func identity(f *os.File, _ fs.FileInfo) (FileID, uint64, error) {
	var d windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(windows.Handle(f.Fd()), &d); err != nil {
		return FileID{}, 0, err
	}
	id := FileID{Dev: uint64(d.VolumeSerialNumber), Ino: uint64(d.FileIndexHigh)<<32 | uint64(d.FileIndexLow)}
	return id, uint64(d.NumberOfLinks), nil
}

// identityAt opens the file at path: a directory listing on Windows does
// not give its identity.
func identityAt(path string, _ fs.FileInfo) (FileID, uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return FileID{}, 0, err
	}
	defer f.Close()
	return identity(f, nil)
}
