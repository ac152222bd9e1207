package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// fakeClock hands out timers a test fires by hand.
type fakeClock struct{ timers chan chan time.Time }

func (c *fakeClock) after(time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	c.timers <- ch
	return ch
}

// Changes that come before the quiet ends are one burst, said once the
// last one's quiet runs out; an earlier timer firing late is not an end.
func TestDebounceMakesOneBurstOfAnEditorsSave(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	raw := make(chan string)
	clock := &fakeClock{timers: make(chan chan time.Time, 8)}
	bursts := debounce(ctx, raw, devQuiet, clock.after)
	raw <- "src/a.rs"
	first := <-clock.timers
	raw <- "src/b.rs"
	second := <-clock.timers
	raw <- "Cargo.toml"
	third := <-clock.timers
	first <- time.Time{} // a timer the later changes replaced
	second <- time.Time{}
	select {
	case b := <-bursts:
		t.Fatalf("a burst before its quiet ended: %+v", b)
	default:
	}
	third <- time.Time{}
	if b := <-bursts; b.first != "src/a.rs" || b.n != 3 {
		t.Errorf("burst = %+v, want src/a.rs and 3 changes", b)
	}
	raw <- "src/c.rs"
	(<-clock.timers) <- time.Time{}
	if b := <-bursts; b.first != "src/c.rs" || b.n != 1 {
		t.Errorf("the next burst = %+v", b)
	}
	cancel()
	if _, ok := <-bursts; ok {
		t.Error("bursts still open after the end")
	}
}

// The watch sees an edit in a folder made after it started, and not what
// a build or a run writes.
func TestWatchFolderSeesNewFoldersAndSkipsBuildOutput(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	fw, err := watchFolder(ctx, dir, devIgnored([]string{"plugin.wasm"}))
	if err != nil {
		t.Fatal(err)
	}
	write := func(rel string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("plugin.wasm")
	write("target/release/x.wasm")
	write("__pycache__/a.pyc")
	if err := os.Mkdir(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The folder's creation is the event that adds its watch: wait for it.
	waitFor(t, fw.Raw, "src")
	write("src/lib.rs")
	waitFor(t, fw.Raw, "src/lib.rs")
}

// waitFor reads changes until want; an ignored one is a failure.
func waitFor(t *testing.T, raw <-chan string, want string) {
	t.Helper()
	for rel := range raw {
		switch rel {
		case want:
			return
		case "plugin.wasm", "target", "__pycache__":
			t.Fatalf("an ignored change came through: %s", rel)
		}
		if filepath.Dir(rel) == "target" || filepath.Dir(rel) == "__pycache__" {
			t.Fatalf("an ignored change came through: %s", rel)
		}
	}
	t.Fatalf("the watch ended before %s", want)
}

func TestDevIgnored(t *testing.T) {
	ignored := devIgnored([]string{"dist/plugin.mjs"})
	for rel, want := range map[string]bool{
		"dist/plugin.mjs": true, "dist/plugin.mjs.map": true, ".git/index": true, "node_modules/x/y.js": true,
		"target/debug/x": true, "targetfmndEk": true, "targets.go": false, "Cargo.lock": true, "x/__pycache__/y.pyc": true, "a.pyc": true,
		"src/plugin.ts": false, "package.json": false, "escouade-plugin.json": false, "dist/other.mjs": false,
	} {
		if got := ignored(rel); got != want {
			t.Errorf("ignored(%q) = %v, want %v", rel, got, want)
		}
	}
}
