package process

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// procRoot is where Linux shows its processes.
const procRoot = "/proc"

// listProcesses reads every process of the machine from /proc. A process
// that ends while it is read is skipped.
func listProcesses() ([]procInfo, error) {
	entries, err := os.ReadDir(procRoot)
	if err != nil {
		return nil, fmt.Errorf("read processes: %w", err)
	}
	pageSize := uint64(os.Getpagesize())
	procs := make([]procInfo, 0, len(entries))
	for _, entry := range entries {
		if _, err := strconv.Atoi(entry.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(procRoot, entry.Name(), "stat"))
		if err != nil {
			continue
		}
		info, err := parseStat(stat, pageSize)
		if err != nil {
			return nil, fmt.Errorf("read process %s: %w", entry.Name(), err)
		}
		procs = append(procs, info)
	}
	return procs, nil
}
