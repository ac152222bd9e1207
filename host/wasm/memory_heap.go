//go:build !(linux || darwin)

package wasm

// reserve has no reservation to give here: linear memories are Go slices,
// copied when they grow.
func reserve(uint64) []byte { return nil }

func release([]byte) {}
