//go:build unix

package services

import (
	"errors"
	"syscall"
)

// nameTooLong reports the system's refusal of a name or a path too long.
func nameTooLong(err error) bool {
	return errors.Is(err, syscall.ENAMETOOLONG)
}
