package wasm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A module that compiled and passed its checks is marked in the compile
// cache, and a later transport on that cache, at the same memory limit,
// counts the mark as one more module only in the pre-pass's folder.
func TestPassedPrepassMarked(t *testing.T) {
	cache := t.TempDir()
	m := pluginDir(t, fixture(t, "c-command"), nil)
	tr := newTransport(t, Options{CacheDir: cache})
	before := CachedModules(cache, "")
	if err := tr.Precompile(t.Context(), m, nil); err != nil {
		t.Fatal(err)
	}
	hash := digest(fixture(t, "c-command"))
	if !tr.bodiesChecked(hash) {
		t.Fatalf("no mark at %s after a compile that passed", tr.checkedMark(hash))
	}
	if got := CachedModules(cache, ""); got != before+1 {
		t.Errorf("%d compiled modules counted after one compile (from %d): the mark is counted as compiled code", got, before)
	}
	other := newTransport(t, Options{CacheDir: cache, Memory: 32 << 20})
	if other.bodiesChecked(hash) {
		t.Error("a mark made at 64 MB is taken at 32 MB")
	}
}

// The mark is what skips the walk over the bodies: a module nesting past
// the bound is refused by the walk, and only a mark for its very bytes
// (forged here) lets it past, to the next check. A module refused is
// never marked.
func TestPrepassMarkSkipsTheWalk(t *testing.T) {
	cache := t.TempDir()
	tr := newTransport(t, Options{CacheDir: cache})
	const refused = "plugin.wasm: function 0 nests blocks 4097 deep; the limit is 4096"
	if err := tr.Precompile(t.Context(), pluginDir(t, deepBlocks, nil), nil); err == nil || err.Error() != refused {
		t.Fatalf("Precompile error %v, want %q", err, refused)
	}
	mark := tr.checkedMark(digest(deepBlocks))
	if _, err := os.Stat(mark); !os.IsNotExist(err) {
		t.Fatalf("a refused module was marked (%v)", err)
	}
	if err := os.MkdirAll(filepath.Dir(mark), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mark, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	forged := newTransport(t, Options{CacheDir: cache})
	err := forged.Precompile(t.Context(), pluginDir(t, deepBlocks, nil), nil)
	if err == nil || strings.Contains(err.Error(), "nests blocks") {
		t.Fatalf("Precompile error %v, want one past the walk's bound", err)
	}
	if !forged.bodiesChecked(digest(deepBlocks)) || forged.bodiesChecked(digest(manyLocals)) {
		t.Error("a mark stands for other bytes than its own")
	}
}

// A module's first compile into the cache says so before and after; a
// start that reads it back says nothing.
func TestFirstCompileSaid(t *testing.T) {
	cache := t.TempDir()
	m := pluginDir(t, fixture(t, "c-command"), nil)
	var lines []string
	say := func(line string) { lines = append(lines, line) }
	if err := newTransport(t, Options{CacheDir: cache, FirstCompile: say}).Precompile(t.Context(), m, nil); err != nil {
		t.Fatal(err)
	}
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "compiling plugin.wasm (") || !strings.Contains(lines[0], "for its first start") ||
		!strings.HasPrefix(lines[1], "compiled plugin.wasm in ") || !strings.Contains(lines[1], "kept in the compile cache") {
		t.Fatalf("first compile said %q", lines)
	}
	lines = nil
	if err := newTransport(t, Options{CacheDir: cache, FirstCompile: say}).Precompile(t.Context(), m, nil); err != nil {
		t.Fatal(err)
	}
	if len(lines) != 0 {
		t.Errorf("a start from the cache said %q", lines)
	}
}
