//go:build linux

package hardening

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Eight installs at once, each told it succeeded, are all recorded: every
// change of the registry is made under the home's lock, read from the
// file as it is then.
func TestConcurrentInstallsAreAllKept(t *testing.T) {
	home := t.TempDir()
	const n = 8
	dirs := make([]string, n)
	for i := range dirs {
		dirs[i] = plugin{id: fmt.Sprintf("dev.escouade.hardening.writer%d", i), manifest: map[string]any{"name": "Writer",
			"run": map[string]any{"command": []string{"sh", "run.sh"}},
		}, files: map[string]string{"run.sh": "exit 0\n"}}.write(t)
	}
	var wg sync.WaitGroup
	codes := make([]int, n)
	stderrs := make([]string, n)
	for i, dir := range dirs {
		wg.Go(func() { _, stderrs[i], codes[i] = cli(t, "install", dir, "--home", home) })
	}
	wg.Wait()
	for i, code := range codes {
		if code != 0 {
			t.Fatalf("install %d: exit %d: %s", i, code, stderrs[i])
		}
	}
	b, err := os.ReadFile(filepath.Join(home, "plugins.json"))
	if err != nil {
		t.Fatal(err)
	}
	var entries []struct{ ID string }
	if err := json.Unmarshal(b, &entries); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, e := range entries {
		got[e.ID] = true
	}
	for i, code := range codes {
		id := fmt.Sprintf("dev.escouade.hardening.writer%d", i)
		if code == 0 && !got[id] {
			t.Errorf("install of %s exited 0 and is not recorded", id)
		}
	}
}
