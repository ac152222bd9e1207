//go:build !unix

package registry

// nonBlocking is empty where opening a file cannot wait for a writer.
const nonBlocking = 0
