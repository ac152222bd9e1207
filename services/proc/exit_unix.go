//go:build unix

package procsvc

import (
	"os"
	"syscall"
)

// exitCode is the program's code; a signal gives 128 + its number.
func exitCode(state *os.ProcessState) int {
	if status, ok := state.Sys().(syscall.WaitStatus); ok && status.Signaled() {
		return 128 + int(status.Signal())
	}
	return state.ExitCode()
}
