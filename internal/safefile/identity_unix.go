//go:build unix

package safefile

import (
	"io/fs"
	"os"
	"syscall"
)

func identity(f *os.File, info fs.FileInfo) (FileID, uint64, error) {
	if info == nil {
		var err error
		if info, err = f.Stat(); err != nil {
			return FileID{}, 0, err
		}
	}
	return identityAt(f.Name(), info)
}

func identityAt(_ string, info fs.FileInfo) (FileID, uint64, error) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return FileID{}, 0, errNoIdentity
	}
	return FileID{Dev: uint64(st.Dev), Ino: uint64(st.Ino)}, uint64(st.Nlink), nil
}
