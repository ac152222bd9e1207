package journal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// On a full disk the journal's file does not grow, so it is never
// rotated over <id>.log.1: the history written before stays. The file is
// a link to /dev/full, where every write fails with ENOSPC.
func TestFullDiskKeepsTheHistory(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	home := t.TempDir()
	path := Path(home, "dev.test.full")
	os.MkdirAll(filepath.Dir(path), 0o700)
	history := "2026-12-07T00:00:00.000Z start started, pid 7\n"
	if err := os.WriteFile(rotatedPath(path), []byte(history), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/full", path); err != nil {
		t.Fatal(err)
	}
	j, err := Open(home, "dev.test.full", Options{MaxSize: 1 << 10, Now: fixedClock})
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		j.Write(TagStderr, strings.Repeat("x", 100))
	}
	j.Flush()
	j.Close()
	if b, err := os.ReadFile(rotatedPath(path)); err != nil || string(b) != history {
		t.Errorf("%s after writes to a full disk: %q, %v; want the history kept", rotatedPath(path), b, err)
	}
}
