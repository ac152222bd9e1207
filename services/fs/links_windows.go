//go:build windows

package fssvc

import (
	"os"
	"strconv"
	"syscall"
)

// linkCount is how many names the opened file has.
func linkCount(f *os.File, _ os.FileInfo) (uint64, bool) {
	var d syscall.ByHandleFileInformation
	if err := syscall.GetFileInformationByHandle(syscall.Handle(f.Fd()), &d); err != nil {
		return 0, false
	}
	return uint64(d.NumberOfLinks), true
}

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }
