package registry

import (
	"io/fs"
	"syscall"
)

// statOf is what the stat cache keeps of a file: its identity and its
// modification and change times. The change time is the kernel's: no
// program sets it back, so a file rewritten and given its old mtime is
// still seen.
func statOf(_ string, info fs.FileInfo) fileStat {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fileStat{}
	}
	return fileStat{Dev: uint64(st.Dev), Ino: st.Ino, MtimeNs: info.ModTime().UnixNano(), CtimeNs: st.Ctim.Nano()}
}
