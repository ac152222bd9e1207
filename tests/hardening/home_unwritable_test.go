//go:build linux

package hardening

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// tmpfsHome mounts a tmpfs of its own at a new folder, with opts (ro,
// size=…), or skips saying why: only root may mount one.
func tmpfsHome(t *testing.T, opts string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a tmpfs home needs root to be mounted")
	}
	home := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", opts, "tmpfs", home).CombinedOutput(); err != nil {
		t.Skipf("mount -t tmpfs -o %s: %v %s", opts, err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", home).Run() })
	return home
}

// readOnlyHome is a home nothing can be written in: a read-only tmpfs as
// root (a folder's mode stops nothing then), a folder of mode 0500
// otherwise.
func readOnlyHome(t *testing.T) string {
	t.Helper()
	if os.Geteuid() == 0 {
		return tmpfsHome(t, "ro,size=64k")
	}
	home := t.TempDir()
	if err := os.Chmod(home, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(home, 0o700) })
	return home
}

// A read-only home does not stop plugins: the plugin runs and answers,
// its journal lines go to stderr after one warning that names the folder
// and the fix (docs/protocol.md#the-journal-unwritable).
func TestReadOnlyHomeRunsPlugins(t *testing.T) {
	home := readOnlyHome(t)
	dir := straysPlugin(t, 1)
	s := runHome(t, dir, home)
	if a := s.call("c1", "test/ping", nil); a["error"] != nil {
		t.Fatalf("test/ping in a read-only home: %v", a)
	}
	strayPids(t, dir, 0) // killed at the end if left
	s.close()
	errText := s.stderrText()
	folder := filepath.Join(home, "plugin-logs")
	if n := strings.Count(errText, "journals cannot be written in "+folder+" ("); n != 1 {
		t.Errorf("%d warnings naming %s, want 1; stderr:\n%s", n, folder, errText)
	}
	if !strings.Contains(errText, "--home") {
		t.Errorf("the warning does not say the fix; stderr:\n%s", errText)
	}
	if !strings.Contains(errText, "dev.escouade.hardening.strays ") || !strings.Contains(errText, " ready ") {
		t.Errorf("the journal's lines are not on stderr:\n%s", errText)
	}
}

// tempName is a temporary file's name in a message: a folder, then a
// name starting with a dot and ending in digits.
var tempName = regexp.MustCompile(`/\.[^/\s]+\.[0-9]+\b`)

// On a full disk an install fails saying the file the person knows and
// the system's reason, never a temporary file's name, and leaves no
// temporary file behind.
func TestFullHomeSaysTheFile(t *testing.T) {
	home := tmpfsHome(t, "size=256k")
	fill, err := os.Create(filepath.Join(home, "fill"))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = fill.Write(make([]byte, 1<<20)) // stops at the tmpfs's size
	fill.Close()
	dir := straysPlugin(t, 1)
	_, errText, code := cli(t, "install", dir, "--home", home)
	if code == 0 {
		t.Fatal("install on a full disk exited 0")
	}
	if !strings.Contains(errText, home+"/") || !strings.Contains(errText, ": no space left on device") {
		t.Errorf("install on a full disk said %q, want a file of the home and the reason", errText)
	}
	if name := tempName.FindString(errText); name != "" {
		t.Errorf("install on a full disk named a temporary file %s: %q", name, errText)
	}
	_ = filepath.Walk(home, func(path string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() && tempName.MatchString(path) {
			t.Errorf("a temporary file was left: %s", path)
		}
		return nil
	})
}
