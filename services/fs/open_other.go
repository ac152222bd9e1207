//go:build !unix

package fssvc

// nonBlocking is empty where opening a file cannot wait for a writer.
const nonBlocking = 0
