//go:build wasip1

// Command badimport is a test module that imports a function from a
// module that is neither WASI preview 1 nor the host's: the host must
// refuse it by name.
package main

//go:wasmimport evil launch_missiles
func launchMissiles() int32

func main() {
	launchMissiles()
}
