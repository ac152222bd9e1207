//go:build unix

package manifest

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A manifest that is a named pipe with no writer, or a link to a device
// that never ends, is refused by what it is: the load neither waits for a
// writer nor reads without end. A hang fails the test by its timeout.
func TestLoadRefusesAManifestThatIsNotAFile(t *testing.T) {
	fifo := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(fifo, FileName), 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	device := t.TempDir()
	if err := os.Symlink("/dev/zero", filepath.Join(device, FileName)); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]string{
		fifo:   "is a named pipe; the host reads only regular files",
		device: "is a device; the host reads only regular files",
	} {
		problems := problemsOf(t, func() error { _, err := Load(dir, LoadOptions{}); return err }())
		if len(problems) != 1 || problems[0].Message != want || problems[0].Fix == "" {
			t.Errorf("Load: %v, want %q with a fix", problems, want)
		}
	}
}
