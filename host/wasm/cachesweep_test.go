package wasm

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The sweep removes the temporary files of writes a kill cut short once
// they are older than any write lasts, and nothing else: not a kept
// file, not a temporary file a live writer may still be filling.
func TestSweepCacheTemps(t *testing.T) {
	now := time.Now()
	old := now.Add(-staleCacheTemp - time.Minute)
	cache := t.TempDir()
	files := map[string]struct {
		mtime time.Time
		kept  bool
	}{
		"host-2-wazy/wazy-amd64-linux/0a1b.123456.tmp": {old, false}, // the runtime's compiled code
		"host-2-wazy/wazy-amd64-linux/0a1b":            {old, true},
		"host-2-wazy/wazy-amd64-linux/0c2d.99.tmp":     {now, true}, // a live writer's
		"js-bytecode/host-2-wazy/77.qbc.tmp":           {old, false},
		"js-bytecode/host-2-wazy/ab12.qbc":             {old, true},
		"host-2-wazy/stacked/.ab12.4242":               {old, false}, // safefile's
		"host-2-wazy/stacked/ab12":                     {old, true},
		"host-2-wazy/checked/.cd34.x1":                 {old, true}, // not a temporary name
		"host-2-wazy/checked/cd34":                     {old, true},
	}
	for name, f := range files {
		path := filepath.Join(cache, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, f.mtime, f.mtime); err != nil {
			t.Fatal(err)
		}
	}
	sweepCacheTemps(cache, now)
	for name, f := range files {
		_, err := os.Lstat(filepath.Join(cache, name))
		if kept := err == nil; kept != f.kept {
			t.Errorf("%s: kept %v, want %v", name, kept, f.kept)
		}
	}
}

func TestIsCacheTemp(t *testing.T) {
	for name, want := range map[string]bool{
		"ab.1.tmp": true, "1.qbc.tmp": true, ".ab.123": true,
		"ab": false, ".ab": false, ".ab.": false, ".ab.12x": false, "ab.123": false, "..123": false,
	} {
		if got := isCacheTemp(name); got != want {
			t.Errorf("isCacheTemp(%q) = %v, want %v", name, got, want)
		}
	}
}

// A cache folder that cannot be made (here a file is in its way, which
// stops root too) leaves the transport with a cache in memory: plugins
// still run, compiled at each start.
func TestUnwritableCacheIsKeptInMemory(t *testing.T) {
	blocked := filepath.Join(t.TempDir(), "wasm-cache")
	if err := os.WriteFile(blocked, []byte("not a folder"), 0o600); err != nil {
		t.Fatal(err)
	}
	tr := newTransport(t, Options{CacheDir: blocked})
	if tr.o.CacheDir != "" || tr.cache == nil {
		t.Errorf("CacheDir %q, cache %v: want the cache in memory", tr.o.CacheDir, tr.cache)
	}
}
