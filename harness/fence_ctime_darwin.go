//go:build darwin

package harness

import (
	"io/fs"
	"syscall"
	"time"
)

// changeTime is when the file's inode last changed, zero when unknown.
func changeTime(info fs.FileInfo) time.Time {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return time.Unix(int64(st.Ctimespec.Sec), int64(st.Ctimespec.Nsec))
	}
	return time.Time{}
}
