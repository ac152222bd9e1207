//go:build !unix

package safefile

// openFlags is empty: outside Unix a file in a folder cannot be a FIFO
// that waits for a writer, so an open does not block; the regular-file
// and size checks still apply.
const openFlags = 0
