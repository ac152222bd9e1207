//go:build unix

package conformance

import (
	"path/filepath"
	"syscall"
	"testing"
)

// A scenario file that is a named pipe with no writer is refused at once,
// saying what it is; a hang fails the test by its timeout.
func TestLoadBenchFileNamedPipe(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, BenchFileName)
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	_, err := LoadBenchFile(dir)
	if want := path + " is a named pipe; the host reads only regular files"; err == nil || err.Error() != want {
		t.Errorf("LoadBenchFile: %v, want %q", err, want)
	}
}
