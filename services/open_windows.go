//go:build windows

package services

import (
	"errors"
	"syscall"
)

// errorFilenameExcedRange is ERROR_FILENAME_EXCED_RANGE, what Windows says
// of a path past its length limit.
const errorFilenameExcedRange syscall.Errno = 206

// nameTooLong reports the system's refusal of a name or a path too long.
// ERROR_PATH_NOT_FOUND, which Windows also gives for some of them, reads as
// missing; checkPath's bounds keep those paths from reaching the system.
func nameTooLong(err error) bool {
	return errors.Is(err, errorFilenameExcedRange) || errors.Is(err, syscall.ENAMETOOLONG)
}
