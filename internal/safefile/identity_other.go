//go:build !unix && !windows

package safefile

import (
	"io/fs"
	"os"
)

func identity(*os.File, fs.FileInfo) (FileID, uint64, error) { return FileID{}, 0, errNoIdentity }

func identityAt(string, fs.FileInfo) (FileID, uint64, error) { return FileID{}, 0, errNoIdentity }
