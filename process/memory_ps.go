//go:build unix && !linux

package process

import (
	"fmt"
	"os/exec"
)

// listProcesses asks ps for every process. macOS and the BSDs have no
// /proc, and ps is how their own tools read the process table without cgo.
func listProcesses() ([]procInfo, error) {
	out, err := exec.Command("ps", "-A", "-o", "pid=", "-o", "ppid=", "-o", "pgid=", "-o", "rss=").Output()
	if err != nil {
		return nil, fmt.Errorf("read processes with ps: %w", err)
	}
	return parsePS(out)
}
