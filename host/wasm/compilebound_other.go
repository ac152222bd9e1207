//go:build !linux

package wasm

import "syscall"

// limitMemory has no hard bound to set outside Linux (macOS does not
// enforce RLIMIT_DATA): the child's memory is bounded by the soft limit
// of its collector, and its time by the deadline.
func limitMemory(uint64) {}

// memoryBounded says the compile child's memory is a hard bound here.
const memoryBounded = false

// childAttr is nothing here: there is no parent-death signal; a compile
// child of a host killed ends with its compile.
func childAttr() *syscall.SysProcAttr { return nil }
