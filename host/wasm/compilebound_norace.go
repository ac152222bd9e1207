//go:build !race

package wasm

// raceScale multiplies the compile's default bounds in a binary built
// with the race detector; this one is not.
const raceScale = 1
