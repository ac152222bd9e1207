//go:build unix

package registry

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A registry or a settings file that is a named pipe (a plugin granted the
// home as an fs root could plant one) is refused at once, not waited on.
func TestHomeFilesThatAreNamedPipes(t *testing.T) {
	home := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(home, FileName), 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	if _, err := Open(home); err == nil || err.Error() != filepath.Join(home, FileName)+" is a named pipe; the host reads only regular files" {
		t.Errorf("Open: %v", err)
	}
	settings := SettingsPath(home, "dev.escouade.x")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(settings, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadSettings(home, "dev.escouade.x"); err == nil || err.Error() != settings+" is a named pipe; the host reads only regular files" {
		t.Errorf("LoadSettings: %v", err)
	}
}
