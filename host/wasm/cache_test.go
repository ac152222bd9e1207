package wasm

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/escouade-dev/escouade-plugin/transport"
)

// cacheFiles maps each file under dir to its modification time.
func cacheFiles(t *testing.T, dir string) map[string]time.Time {
	t.Helper()
	out := map[string]time.Time{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out[path] = info.ModTime()
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return out
}

// A module compiles once per transport; a second transport on the same
// cache reads the compiled code instead of compiling again; another host
// version compiles into a folder of its own.
func TestCompileCache(t *testing.T) {
	cache := t.TempDir()
	m := pluginDir(t, fixture(t, "c-command"), nil)
	first := newTransport(t, Options{CacheDir: cache, HostVersion: "1.0.0"})
	for range 2 {
		prog := launch(t, first, specOf(m))
		ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
		if err := prog.Stop(ctx, transport.StopOptions{}); err != nil {
			t.Fatal(err)
		}
		cancel()
	}
	if n := first.compiles.Load(); n != 1 {
		t.Errorf("%d compiles for two starts, want 1", n)
	}
	folder := CacheFolder(cache, "1.0.0")
	compiled := cacheFiles(t, folder)
	if len(compiled) == 0 {
		t.Fatalf("nothing in %s", folder)
	}
	second := newTransport(t, Options{CacheDir: cache, HostVersion: "1.0.0"})
	if err := second.Precompile(context.Background(), m, nil); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(compiled, cacheFiles(t, folder)); diff != "" {
		t.Errorf("the second transport wrote the cache again (-before +after):\n%s", diff)
	}
	newer := newTransport(t, Options{CacheDir: cache, HostVersion: "1.1.0"})
	if err := newer.Precompile(context.Background(), m, nil); err != nil {
		t.Fatal(err)
	}
	if len(cacheFiles(t, CacheFolder(cache, "1.1.0"))) == 0 {
		t.Error("a new host version did not compile into its own folder")
	}
}

// A compile that lasts says what it compiles, then its time.
func TestPrecompileProgress(t *testing.T) {
	tr := newTransport(t, Options{CacheDir: t.TempDir(), ProgressAfter: time.Nanosecond})
	var lines []string
	if err := tr.Precompile(context.Background(), pluginDir(t, fixture(t, "c-command"), nil), func(s string) { lines = append(lines, s) }); err != nil {
		t.Fatal(err)
	}
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "preparing plugin.wasm (") || !strings.HasPrefix(lines[1], "compiled plugin.wasm in ") {
		t.Errorf("progress %q, want a preparing line then a compiled line", lines)
	}
}

// An updated module replaces the old one for its folder.
func TestModuleUpdate(t *testing.T) {
	tr := newTransport(t, Options{})
	m := pluginDir(t, exitsWith7, nil)
	if err := tr.Precompile(context.Background(), m, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(m.Dir, ModuleFile), loopsInStart, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := tr.Precompile(context.Background(), m, nil); err != nil {
		t.Fatal(err)
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if len(tr.modules) != 1 {
		t.Errorf("%d modules kept, want the new one only", len(tr.modules))
	}
}

// A first start that compiles says so in the journal, tag "wasm".
func TestFirstStartJournalsCompile(t *testing.T) {
	tr := newTransport(t, Options{CacheDir: t.TempDir(), ProgressAfter: time.Nanosecond})
	var j journal
	launch(t, tr, specOf(pluginDir(t, fixture(t, "c-command"), nil), transport.LaunchSpec{Journal: j.add}))
	lines := j.all()
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "wasm preparing plugin.wasm (") || !strings.HasPrefix(lines[1], "wasm compiled plugin.wasm in ") {
		t.Errorf("journal %q, want the compile's two lines", lines)
	}
}
