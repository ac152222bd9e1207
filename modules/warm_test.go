package modules

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/host/wasm"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/registry"
)

// recorded puts a registry entry for dir, as an install would (an older
// host's install, for a module this one no longer compiles).
func recorded(t *testing.T, home, id, dir string, disabled bool) {
	t.Helper()
	if err := registry.Update(home, func(r *registry.Registry) error {
		r.Put(registry.Entry{ID: id, Dir: dir, Version: "1.0.0", Disabled: disabled})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// helloJS is the example bundle's manifest.
func helloJS(t *testing.T) *manifest.Manifest {
	t.Helper()
	m, err := manifest.Load("../examples/hello-js", manifest.LoadOptions{AppVersion: host.AppVersion})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// moduleFolder writes a run.wasm plugin whose plugin.wasm is body.
func moduleFolder(t *testing.T, id string, body []byte) string {
	t.Helper()
	dir := t.TempDir()
	m, _ := json.Marshal(map[string]any{
		"id": id, "name": id, "version": "1.0.0", "escouade": map[string]string{"api": "1", "min": "2.2.0"},
		"run": map[string]string{"wasm": "plugin.wasm"}, "activation": []string{"onCall"},
	})
	for name, b := range map[string][]byte{manifest.FileName: m, wasm.ModuleFile: body} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// firstCompiles precompiles m on a fresh transport of home under version
// and gives the first-compile lines it said: none when the compile cache
// already held what the start needs.
func firstCompiles(t *testing.T, home, version string, m *manifest.Manifest) []string {
	t.Helper()
	var mu sync.Mutex
	var lines []string
	wt, err := NewTransport(context.Background(), Options{Home: home, HostVersion: version, FirstCompile: func(l string) {
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, l)
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer wt.Close(context.Background())
	if err := wt.Precompile(context.Background(), m, nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	return lines
}

// A new host version finds the installed modules compiled by Warm: the
// start compiles nothing, a disabled plugin is left alone, a module that
// does not compile is said and does not stop the rest, and the second
// start of that version warms nothing.
func TestWarmCompilesTheInstalledModulesOncePerVersion(t *testing.T) {
	home := t.TempDir()
	bundle := helloJS(t)
	recorded(t, home, bundle.ID, bundle.Dir, false)
	recorded(t, home, "dev.test.not-wasm", moduleFolder(t, "dev.test.not-wasm", []byte("this is no WebAssembly module")), false)
	recorded(t, home, "dev.test.disabled", moduleFolder(t, "dev.test.disabled", []byte("never read")), true)

	var said []string
	report, err := Warm(context.Background(), home, "9.9.9", func(l string) { said = append(said, l) })
	if err != nil {
		t.Fatal(err)
	}
	if len(report.Compiled) != 1 || report.Compiled[0] != bundle.ID {
		t.Errorf("compiled %v, want only %s", report.Compiled, bundle.ID)
	}
	if _, ok := report.Failed["dev.test.not-wasm"]; !ok || len(report.Failed) != 1 {
		t.Errorf("failed %v, want dev.test.not-wasm alone", report.Failed)
	}
	if all := strings.Join(said, "\n"); !strings.Contains(all, "(1 of 2)") || !strings.Contains(all, "dev.test.not-wasm was not compiled: ") {
		t.Errorf("progress said:\n%s", all)
	}
	if lines := firstCompiles(t, home, "9.9.9", bundle); len(lines) != 0 {
		t.Errorf("the warmed version compiled at its start: %q", lines)
	}
	if lines := firstCompiles(t, home, "9.9.10", bundle); len(lines) == 0 {
		t.Error("a version never warmed said no first compile: the check above cannot fail")
	}
	again, err := Warm(context.Background(), home, "9.9.9", nil)
	if err != nil || !again.AlreadyWarm || len(again.Compiled) != 0 {
		t.Errorf("second warm of a version: %+v, %v", again, err)
	}
}

// A warm cancelled midway is not recorded as done: the next start of the
// version warms again.
func TestWarmCancelledIsNotMarked(t *testing.T) {
	home := t.TempDir()
	bundle := helloJS(t)
	recorded(t, home, bundle.ID, bundle.Dir, false)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Warm(ctx, home, "9.9.9", nil); err == nil {
		t.Fatal("a cancelled warm said nothing")
	}
	if _, err := os.Stat(filepath.Join(wasm.CacheFolder(CacheDir(home), "9.9.9"), warmedFile)); err == nil {
		t.Error("a cancelled warm was marked done")
	}
}
