//go:build darwin

package wasm

// adviseHuge does nothing here: macOS gives no advice for huge pages of
// anonymous memory.
func adviseHuge([]byte) {}
