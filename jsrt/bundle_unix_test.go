//go:build unix

package jsrt

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/escouade-dev/escouade-plugin/manifest"
)

// A bundle that is a named pipe, a link to a device or a sparse file past
// the limit is refused by what it is, without waiting on it or reading it.
func TestBundleThatIsNotASmallFile(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.mjs"), 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.mjs")); err != nil {
		t.Fatal(err)
	}
	sparse, err := os.Create(filepath.Join(dir, "sparse.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := sparse.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	sparse.Close()
	for js, want := range map[string]string{
		"fifo.mjs":   "run.js: fifo.mjs is a named pipe; the host reads only regular files",
		"zero.mjs":   "run.js: zero.mjs is a device; the host reads only regular files",
		"sparse.mjs": "run.js: sparse.mjs is 1.0 GiB; the limit is 16 MiB",
	} {
		_, err := New().Bundle(&manifest.Manifest{Dir: dir, Run: &manifest.Run{JS: js}})
		if err == nil || err.Error() != want {
			t.Errorf("Bundle(%s): %v, want %q", js, err, want)
		}
	}
}
