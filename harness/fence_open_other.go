//go:build !unix && !windows

package harness

import (
	"os"
	"path/filepath"
)

// openResolved opens resolved; these systems have no links to swap in.
func openResolved(resolved string, write bool) (*os.File, error) {
	if !write {
		return os.Open(resolved)
	}
	if err := os.MkdirAll(filepath.Dir(resolved), 0o755); err != nil {
		return nil, err
	}
	return os.OpenFile(resolved, os.O_WRONLY|os.O_CREATE, 0o644)
}

func finalPath(*os.File) (string, bool) { return "", false }
