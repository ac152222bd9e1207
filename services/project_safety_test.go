package services

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/internal/testutil"
)

// TestLoadProjectConfigNeverQuotesTheFile: YAML's messages quote values and
// keys, and the file may be a link to a key file; the error must not.
func TestLoadProjectConfigNeverQuotesTheFile(t *testing.T) {
	const secret = "SECRETVALUE"
	tests := []struct{ name, yml, want string }{
		{"top level a string", secret + "\n", ".escouade.yml: yaml: line 1: not the shape expected"},
		{"plugins a string", "plugins: " + secret + "\n", ".escouade.yml: yaml: line 1: not the shape expected"},
		{"a PEM key", "-----BEGIN PRIVATE KEY-----\n" + secret + "\n-----END PRIVATE KEY-----\n", ".escouade.yml: yaml:"},
		{"a tab", "\t" + secret + ": x\n", ".escouade.yml: yaml: not valid YAML"},
		{"an unclosed quote", "plugins: '" + secret + "\n", ".escouade.yml: yaml: line"},
		{"duplicate key", "plugins:\n  dev.escouade.slack: {" + secret + ": 1, " + secret + ": 2}\n", "line 2: a key already defined above"},
		{"settings of a wrong kind", "plugins:\n  dev.escouade.slack: " + secret + "\n", "(line 2) must be a map"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadProjectConfig(writeProject(t, tt.yml), "dev.escouade.slack")
			if err == nil {
				t.Fatal("accepted")
			}
			if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "SECRET") {
				t.Errorf("error quotes the file: %v", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want it to hold %q", err, tt.want)
			}
		})
	}
}

// TestLoadProjectConfigLinkOut: a .escouade.yml that is a link out of the
// project was read.
func TestLoadProjectConfigLinkOut(t *testing.T) {
	testutil.SkipUnderWine(t, testutil.WineLinks)
	base := t.TempDir()
	project := filepath.Join(base, "project")
	outside := filepath.Join(base, "outside.yml")
	if err := os.MkdirAll(project, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(outside, []byte("plugins:\n  dev.escouade.slack:\n    channel: stolen\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(project, ProjectFileName)); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	got, err := LoadProjectConfig(project, "dev.escouade.slack")
	if err == nil || got != nil {
		t.Fatalf("LoadProjectConfig through a link out = %+v, %v; want a refusal", got, err)
	}
	if want := ".escouade.yml is a link that leads out of the project: it is not read"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	// Relative, through a parent folder, it is the same.
	os.Remove(filepath.Join(project, ProjectFileName))
	os.Symlink("../outside.yml", filepath.Join(project, ProjectFileName))
	if got, err := LoadProjectConfig(project, "dev.escouade.slack"); err == nil {
		t.Errorf("LoadProjectConfig through a relative link out = %+v", got)
	}
}

// TestLoadProjectConfigLinkInside follows a link that stays in the project.
func TestLoadProjectConfigLinkInside(t *testing.T) {
	testutil.SkipUnderWine(t, testutil.WineLinks)
	project := t.TempDir()
	if err := os.MkdirAll(filepath.Join(project, "config"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "config", "escouade.yml"), []byte("plugins:\n  dev.escouade.slack:\n    channel: kept\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("config/escouade.yml", filepath.Join(project, ProjectFileName)); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	got, err := LoadProjectConfig(project, "dev.escouade.slack")
	if err != nil || got.Values["channel"] != "kept" {
		t.Errorf("LoadProjectConfig through a link inside = %+v, %v", got, err)
	}
}
