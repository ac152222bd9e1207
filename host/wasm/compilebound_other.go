//go:build !linux

package wasm

// limitMemory has no hard bound to set outside Linux (macOS does not
// enforce RLIMIT_DATA): the child's memory is bounded by the soft limit
// of its collector, and its time by the deadline.
func limitMemory(uint64) {}

// memoryBounded says the compile child's memory is a hard bound here.
const memoryBounded = false
