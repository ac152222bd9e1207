//go:build unix

package fs

import "syscall"

// nonBlocking opens a FIFO without waiting for a writer; on a regular file
// it changes nothing.
const nonBlocking = syscall.O_NONBLOCK
