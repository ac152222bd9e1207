//go:build unix

package journal

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// readOnlyHome is a home the journals cannot be written in: a read-only
// tmpfs as root (a mode does not stop root), a folder of mode 0500
// otherwise. It is skipped, saying why, where neither can be had.
func readOnlyHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	if os.Geteuid() != 0 {
		if err := os.Chmod(home, 0o500); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Chmod(home, 0o700) })
		return home
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", home).CombinedOutput(); err != nil {
		t.Skipf("as root a folder's mode stops nothing, and a read-only tmpfs cannot be mounted here: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", home).Run() })
	return home
}

// syncBuffer is a bytes.Buffer written by the journals' goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// A journal that cannot be written in a read-only home still opens: its
// lines go to Unwritable with the plugin's id, after one warning for the
// folder however many plugins there are, which names it, the reason and
// the fix. Nothing is lost and no error stops the plugin.
func TestReadOnlyHomeJournalsElsewhere(t *testing.T) {
	home := readOnlyHome(t)
	var out syncBuffer
	var journals []*Journal
	for _, id := range []string{"dev.test.one", "dev.test.two"} {
		j, err := Open(home, id, Options{Unwritable: &out, Now: fixedClock})
		if err != nil {
			t.Fatalf("Open in a read-only home: %v", err)
		}
		journals = append(journals, j)
		j.Write(TagStart, "started, pid 7")
	}
	for _, j := range journals {
		if err := j.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}
	text := out.String()
	folder := filepath.Join(home, "plugin-logs")
	if n := strings.Count(text, "cannot be written in "+folder+" ("); n != 1 {
		t.Errorf("%d warnings for %s, want 1:\n%s", n, folder, text)
	}
	if !strings.Contains(text, "--home") {
		t.Errorf("the warning does not say the fix:\n%s", text)
	}
	for _, id := range []string{"dev.test.one", "dev.test.two"} {
		if !strings.Contains(text, "\n"+id+" 2026-") || !strings.Contains(text, "start started, pid 7") {
			t.Errorf("the line of %s is not on stderr:\n%s", id, text)
		}
	}
	if _, err := os.Stat(folder); err == nil {
		t.Errorf("%s was made in a read-only home", folder)
	}
}
