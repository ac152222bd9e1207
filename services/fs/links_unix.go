//go:build unix

package fssvc

import (
	"os"
	"strconv"
	"syscall"
)

// linkCount is how many names the opened file has.
func linkCount(_ *os.File, info os.FileInfo) (uint64, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Nlink), true
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }
