//go:build race

package wasm

// raceScale multiplies the compile's default bounds in a binary built
// with the race detector (the tests'): it slows the compiler tenfold and
// maps shadow memory beside the heap. A release build is never one.
const raceScale = 10
