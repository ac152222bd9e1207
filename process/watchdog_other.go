//go:build !linux

package process

// Only Linux has the watchdog (see watchdog_linux.go): on Windows the Job
// object kills the program's tree when the host dies; on the other
// systems a host killed leaves its programs to the end of their stdin
// (doc.go).

func watchToken(string)              {}
func watchGroup(string, int, uint64) {}
func forgetToken(string)             {}

func watchdogPID() int { return 0 }
