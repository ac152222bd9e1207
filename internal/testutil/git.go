package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// GitBare commits the folder dir and returns a bare repository of it, as
// a person publishes a plugin; the user's git configuration is left out.
// The test is skipped where git is not installed.
func GitBare(t *testing.T, dir string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	bare := filepath.Join(t.TempDir(), "plugin.git")
	for _, args := range [][]string{
		{"-C", dir, "init", "-q"}, {"-C", dir, "add", "-A"},
		{"-C", dir, "-c", "user.email=t@example.org", "-c", "user.name=t", "commit", "-qm", "plugin"},
		{"clone", "-q", "--bare", dir, bare},
	} {
		cmd := exec.Command("git", args...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return bare
}
