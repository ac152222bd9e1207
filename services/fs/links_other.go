//go:build !unix && !windows

package fssvc

import (
	"os"
	"strconv"
)

// linkCount is unknown where the system does not say it.
func linkCount(*os.File, os.FileInfo) (uint64, bool) { return 0, false }

func itoa(n uint64) string { return strconv.FormatUint(n, 10) }
