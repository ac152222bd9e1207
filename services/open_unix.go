//go:build unix

package services

import (
	"errors"
	"syscall"
)

// nonBlocking opens a FIFO without waiting for a writer; on a regular file
// it changes nothing.
const nonBlocking = syscall.O_NONBLOCK

// nameTooLong reports the system's refusal of a name or a path too long.
func nameTooLong(err error) bool {
	return errors.Is(err, syscall.ENAMETOOLONG)
}
