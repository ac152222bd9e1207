package registry

import (
	"io/fs"
	"syscall"
)

// statOf is what the stat cache keeps of a file (stat_linux.go says why).
func statOf(_ string, info fs.FileInfo) fileStat {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fileStat{}
	}
	return fileStat{Dev: uint64(st.Dev), Ino: st.Ino, MtimeNs: info.ModTime().UnixNano(), CtimeNs: st.Ctimespec.Nano()}
}
