package registry

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/manifest"
)

// TestConsentPinsTheExeAStartRuns: on Windows ./tool runs tool.exe (by
// PATHEXT), so the consent pins tool.exe as the program: the plugin's own
// run cannot take it for a file of its own, and a swapped tool.exe is
// named as the program that changed.
func TestConsentPinsTheExeAStartRuns(t *testing.T) {
	dir := t.TempDir()
	manifestText := `{"id":"dev.test.consent","name":"Consent","version":"1.0.0","escouade":{"api":"1"},"run":{"command":["./tool","--flag"]},"activation":["onCall"]}`
	for name, body := range map[string]string{"tool.exe": "MZ first", manifest.FileName: manifestText} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	m, err := manifest.Load(dir, manifest.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Fingerprint(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Files["tool.exe"]; !ok {
		t.Fatalf("the program's files are %v, not tool.exe", c.Files)
	}
	home := t.TempDir()
	c, rec, err := fingerprint(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := recordFolder(home, m.ID, rec); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(m.Dir, "tool.exe"), []byte("MZ other"), 0o755); err != nil {
		t.Fatal(err)
	}
	err = c.Check(home, m)
	if err == nil || !strings.Contains(err.Error(), "tool.exe") {
		t.Fatalf("a swapped tool.exe: %v", err)
	}
}
