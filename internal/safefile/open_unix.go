//go:build unix

package safefile

import "syscall"

// openFlags open without waiting: a FIFO with no writer opens at once
// (O_NONBLOCK), and a terminal never becomes the host's controlling one
// (O_NOCTTY). On a regular file they change nothing.
const openFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY
