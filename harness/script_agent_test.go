package harness

import (
	"os"
	"path/filepath"
	"testing"
)

// reviewScript writes a fake agent script given inline.
func reviewScript(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
