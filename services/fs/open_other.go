//go:build !unix

package fs

// nonBlocking is empty where opening a file cannot wait for a writer.
const nonBlocking = 0
