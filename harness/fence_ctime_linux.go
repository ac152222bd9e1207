//go:build linux

package harness

import (
	"io/fs"
	"syscall"
	"time"
)

// changeTime is when the file's inode last changed, zero when unknown.
func changeTime(info fs.FileInfo) time.Time {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec))
	}
	return time.Time{}
}
