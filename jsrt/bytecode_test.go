package jsrt

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/host/wasm/engine"
	"github.com/escouade-dev/escouade-plugin/manifest"
)

// startName names a start from the sources or from their bytecode.
func startName(bytecode bool) string {
	if bytecode {
		return "bytecode"
	}
	return "source"
}

// compileOn is what host/wasm gives CachedBundle: an instance of the
// engine on r running its compile export on bundle, its stdout.
func compileOn(r *engineRuntime) func(bundle fs.FS) ([]byte, error) {
	return func(bundle fs.FS) ([]byte, error) {
		var out bytes.Buffer
		cfg := engine.NewModuleConfig().WithName("").WithStartFunctions().
			WithStdout(&out).
			WithFSConfig(engine.NewFSConfig().WithFSMount(bundle, BundleMount)).
			WithSysNanotime().WithRandSource(rand.Reader)
		ctx := context.Background()
		mod, err := r.rt.InstantiateModule(ctx, r.compiled, cfg)
		if err != nil {
			return nil, err
		}
		defer mod.Close(ctx)
		for _, name := range []string{"_initialize", ExportCompile} {
			if _, err := mod.ExportedFunction(name).Call(ctx); err != nil {
				return nil, err
			}
		}
		return out.Bytes(), nil
	}
}

// withBytecode is bundle with the bytecode of its runtime and its module.
func withBytecode(t testing.TB, r *engineRuntime, bundle fs.FS) fs.FS {
	t.Helper()
	out, err := compileOn(r)(bundle)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	b, err := parseCompiled(out)
	if err != nil {
		t.Fatal(err)
	}
	files := bundle.(sourcedFS).memFS
	files[RuntimeBytecodeFile] = &memFile{data: b.runtime}
	files[BundleBytecodeFile] = &memFile{data: b.bundle}
	return files
}

// encodeCache is the cache file of b under key, as CachedBundle writes a
// compile's output: its frames after cacheFileHeader.
func encodeCache(key [sha256.Size]byte, b bytecode) []byte {
	payload := binary.LittleEndian.AppendUint32(nil, uint32(len(b.runtime)))
	payload = append(payload, b.runtime...)
	payload = binary.LittleEndian.AppendUint32(payload, uint32(len(b.bundle)))
	payload = append(payload, b.bundle...)
	return append(cacheFileHeader(key, payload), payload...)
}

// pluginDir is a plugin folder whose run.js bundle is src.
func pluginDir(t *testing.T, src string) *manifest.Manifest {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "dist"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeBundle(t, dir, src)
	return &manifest.Manifest{Dir: dir, Run: &manifest.Run{JS: "dist/plugin.mjs"}}
}

func writeBundle(t *testing.T, dir, src string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "dist", "plugin.mjs"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

// countingCompile counts the compiles CachedBundle asks for.
type countingCompile struct {
	r *engineRuntime
	n atomic.Int32
}

func (c *countingCompile) compile(bundle fs.FS) ([]byte, error) {
	c.n.Add(1)
	return compileOn(c.r)(bundle)
}

// runFiles starts an instance on the /bundle files and returns its first
// turn's stdout.
func runFiles(t *testing.T, files fs.FS) string {
	t.Helper()
	in := launchFiles(t, files, instanceOptions{})
	out := in.runTurn(nil)
	if in.ended != nil {
		t.Fatalf("ended %v: %s", in.ended, in.stderr.String())
	}
	return out
}

func cacheFiles(t *testing.T, dir string) []string {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(dir, "*.qbc"))
	return names
}

// The first start compiles and keeps the bytecode; the second reads it
// back and compiles nothing; the engine then runs the bytecode, not the
// source (a source swapped under it is not what runs).
func TestBytecodeKeptAndReadBack(t *testing.T) {
	c := &countingCompile{r: sharedRuntime(t, true)}
	m := pluginDir(t, `process.stdout.write('from ' + import.meta.url + '\n')`)
	dir := t.TempDir()
	for i := range 2 {
		files, err := New().CachedBundle(m, dir, c.compile)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fs.Stat(files, BundleBytecodeFile); err != nil {
			t.Fatalf("start %d: no bytecode mounted: %v", i+1, err)
		}
		if _, err := fs.Stat(files, MainFile); err == nil {
			t.Fatalf("start %d: the source is kept beside its bytecode", i+1)
		}
		if got := runFiles(t, files); got != "from file:///plugin/dist/plugin.mjs\n" {
			t.Fatalf("start %d: %q", i+1, got)
		}
	}
	if n := c.n.Load(); n != 1 {
		t.Fatalf("%d compiles for two starts of one bundle, want 1", n)
	}
	if got := len(cacheFiles(t, dir)); got != 1 {
		t.Fatalf("%d cache files, want 1", got)
	}

	files, _ := New().CachedBundle(m, dir, c.compile)
	files.(cachedFS).memFS[MainFile] = &memFile{data: []byte(`process.stdout.write('the source ran\n')`)}
	if got := runFiles(t, files); !strings.HasPrefix(got, "from ") {
		t.Fatalf("with bytecode mounted the source ran: %q", got)
	}
}

// A changed bundle, or the same bundle at another path, is another key:
// it is compiled again and its own bytecode runs.
func TestBytecodeOfAChangedBundle(t *testing.T) {
	c := &countingCompile{r: sharedRuntime(t, true)}
	m := pluginDir(t, `process.stdout.write('one\n')`)
	dir := t.TempDir()
	files, _ := New().CachedBundle(m, dir, c.compile)
	if got := runFiles(t, files); got != "one\n" {
		t.Fatalf("first: %q", got)
	}
	writeBundle(t, m.Dir, `process.stdout.write('two\n')`)
	files, _ = New().CachedBundle(m, dir, c.compile)
	if got := runFiles(t, files); got != "two\n" {
		t.Fatalf("after the change: %q", got)
	}
	if err := os.Rename(filepath.Join(m.Dir, "dist"), filepath.Join(m.Dir, "out")); err != nil {
		t.Fatal(err)
	}
	moved := &manifest.Manifest{Dir: m.Dir, Run: &manifest.Run{JS: "out/plugin.mjs"}}
	files, _ = New().CachedBundle(moved, dir, c.compile)
	if got := runFiles(t, files); got != "two\n" {
		t.Fatalf("moved: %q", got)
	}
	if n, files := c.n.Load(), len(cacheFiles(t, dir)); n != 3 || files != 3 {
		t.Fatalf("%d compiles, %d cache files; want 3 of each", n, files)
	}
}

// A cache file that is not exactly what the host wrote for this bundle is
// never mounted: it is compiled again and the file replaced.
func TestDamagedBytecodeIgnoredAndReplaced(t *testing.T) {
	r := sharedRuntime(t, true)
	const src = `process.stdout.write('fine\n')`
	other := pluginDir(t, `process.stdout.write('foreign\n')`)
	for name, damage := range map[string]func(file []byte) []byte{
		"a flipped byte of bytecode": func(f []byte) []byte { f[len(f)-10] ^= 0x40; return f },
		"a flipped byte of digest":   func(f []byte) []byte { f[50] ^= 1; return f },
		"truncated":                  func(f []byte) []byte { return f[:len(f)/2] },
		"header only":                func(f []byte) []byte { return f[:cacheHeader] },
		"empty":                      func([]byte) []byte { return nil },
		"random bytes":               func(f []byte) []byte { _, _ = rand.Read(f); return f },
		"another bundle's file": func([]byte) []byte {
			files, _ := New().CachedBundle(other, t.TempDir(), compileOn(r))
			mem := files.(cachedFS).memFS
			b := bytecode{runtime: mem[RuntimeBytecodeFile].data, bundle: mem[BundleBytecodeFile].data}
			return encodeCache(cacheKey([]byte(`process.stdout.write('foreign\n')`), "dist/plugin.mjs"), b)
		},
	} {
		t.Run(name, func(t *testing.T) {
			c := &countingCompile{r: r}
			m := pluginDir(t, src)
			dir := t.TempDir()
			if _, err := New().CachedBundle(m, dir, c.compile); err != nil {
				t.Fatal(err)
			}
			file := cacheFiles(t, dir)[0]
			good, _ := os.ReadFile(file)
			if err := os.WriteFile(file, damage(bytes.Clone(good)), 0o600); err != nil {
				t.Fatal(err)
			}
			files, err := New().CachedBundle(m, dir, c.compile)
			if err != nil {
				t.Fatal(err)
			}
			if got := runFiles(t, files); got != "fine\n" {
				t.Fatalf("ran %q", got)
			}
			if n := c.n.Load(); n != 2 {
				t.Fatalf("%d compiles, want 2: the damaged file was taken", n)
			}
			if now, _ := os.ReadFile(file); !bytes.Equal(now, good) {
				t.Fatal("the damaged file was not replaced by the bytecode")
			}
		})
	}
}

// Without a way to compile, or with a folder that cannot be written, the
// bundle starts from its source.
func TestBytecodeWithoutCache(t *testing.T) {
	m := pluginDir(t, `process.stdout.write('ok\n')`)
	blocked := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocked, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for name, compile := range map[string]func(fs.FS) ([]byte, error){
		"no compile":       nil,
		"a failed compile": func(fs.FS) ([]byte, error) { return nil, errors.New("no") },
		"bad output":       func(fs.FS) ([]byte, error) { return []byte{9, 0, 0, 0, 1}, nil },
		"huge output":      func(fs.FS) ([]byte, error) { return make([]byte, MaxBytecodeBytes+1), nil },
	} {
		files, err := New().CachedBundle(m, blocked, compile)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fs.Stat(files, BundleBytecodeFile); err == nil {
			t.Fatalf("%s: bytecode mounted", name)
		}
		if got := runFiles(t, files); got != "ok\n" {
			t.Fatalf("%s: %q", name, got)
		}
	}
	// A folder that is a file: compiled, mounted, not kept.
	c := &countingCompile{r: sharedRuntime(t, true)}
	files, err := New().CachedBundle(m, blocked, c.compile)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fs.Stat(files, BundleBytecodeFile); err != nil {
		t.Fatalf("unwritable cache: the compiled bytecode is not mounted: %v", err)
	}
	if got := files.(cachedFS).BytecodeFile(); got != "" {
		t.Fatalf("unwritable cache: names the kept file %q", got)
	}
	if info, err := os.Stat(blocked); err != nil || info.IsDir() || info.Size() != 0 {
		t.Fatalf("unwritable cache: the file standing for the folder changed: %v, %v", info, err)
	}
	if got := runFiles(t, files); got != "ok\n" {
		t.Fatalf("unwritable cache: %q", got)
	}
	// Nothing was kept: the next start compiles again.
	if _, err := New().CachedBundle(m, blocked, c.compile); err != nil {
		t.Fatal(err)
	}
	if n := c.n.Load(); n != 2 {
		t.Fatalf("%d compiles for two starts with an unwritable cache, want 2", n)
	}
}

// A bundle's errors read the same from its bytecode: the file name, the
// line and column of each frame, and Function.prototype.toString.
func TestBytecodeKeepsSourcePositions(t *testing.T) {
	const src = "function shown(a) { return a + 1 }\nprocess.stderr.write(shown.toString() + '\\n');\nfunction boom() {\n  throw new Error('boom')\n}\nboom()\n"
	var stderrs [2]string
	for i, bytecode := range []bool{false, true} {
		in := launch(t, src, instanceOptions{bytecode: bytecode})
		in.runTurn(nil)
		if in.exitCode() != ExitCrash {
			t.Fatalf("%s: exit %d", startName(bytecode), in.exitCode())
		}
		stderrs[i] = in.stderr.String()
	}
	if stderrs[0] != stderrs[1] {
		t.Fatalf("from source:\n%s\nfrom bytecode:\n%s", stderrs[0], stderrs[1])
	}
	if !strings.Contains(stderrs[1], "function shown(a) { return a + 1 }") || !strings.Contains(stderrs[1], "plugin.mjs:4:") {
		t.Fatalf("stderr %s", stderrs[1])
	}
}

// No byte of a file that is not a cache file for the key reaches the
// engine: decodeCache accepts only what encodeCache writes for that key.
func FuzzDecodeCache(f *testing.F) {
	key := cacheKey([]byte("x"), "dist/plugin.mjs")
	good := encodeCache(key, bytecode{runtime: []byte("rt"), bundle: []byte("bundle")})
	f.Add(good)
	f.Add(good[:len(good)-1])
	f.Add(append(bytes.Clone(good), 0))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, file []byte) {
		b, ok := decodeCache(key, file)
		if !ok {
			return
		}
		if !bytes.Equal(encodeCache(key, b), file) {
			t.Fatalf("accepted a file that is not the encoding of what it decoded to")
		}
		if digest := sha256.Sum256(file[cacheHeader:]); !bytes.Equal(digest[:], file[48:cacheHeader]) {
			t.Fatal("accepted a file whose digest does not match")
		}
	})
}

// FuzzParseCompiled: a compile's output is two non-empty frames exactly.
func FuzzParseCompiled(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0, 'a', 1, 0, 0, 0, 'b'})
	f.Add([]byte{0, 0, 0, 0})
	f.Add([]byte{255, 255, 255, 255, 1})
	f.Fuzz(func(t *testing.T, out []byte) {
		b, err := parseCompiled(out)
		if err != nil {
			return
		}
		if len(b.runtime) == 0 || len(b.bundle) == 0 || 8+len(b.runtime)+len(b.bundle) != len(out) {
			t.Fatalf("accepted %d bytes as frames of %d and %d", len(out), len(b.runtime), len(b.bundle))
		}
	})
}

// A bundle Check refuses is refused by CachedBundle with Bundle's text,
// and gets no cache file.
func TestCachedBundleChecks(t *testing.T) {
	m := pluginDir(t, "import { spawn } from 'node:child_process'\nspawn('x')\n")
	_, want := New().Bundle(m)
	dir := t.TempDir()
	_, err := New().CachedBundle(m, dir, compileOn(sharedRuntime(t, true)))
	if want == nil || err == nil || err.Error() != want.Error() {
		t.Fatalf("CachedBundle: %v; Bundle: %v", err, want)
	}
	if names := cacheFiles(t, dir); len(names) != 0 {
		t.Fatalf("cache files %v", names)
	}
}

// Starts of one bundle at once each get whole bytecode, and leave one
// cache file and no temporary one.
func TestBytecodeConcurrentStarts(t *testing.T) {
	c := &countingCompile{r: sharedRuntime(t, true)}
	m := pluginDir(t, `process.stdout.write('same\n')`)
	dir := t.TempDir()
	const starts = 6
	results := make(chan fs.FS, starts)
	for range starts {
		go func() {
			files, err := New().CachedBundle(m, dir, c.compile)
			if err != nil {
				t.Error(err)
			}
			results <- files
		}()
	}
	for range starts {
		files := <-results
		if files == nil {
			continue // its error is reported
		}
		if _, err := fs.Stat(files, BundleBytecodeFile); err != nil {
			t.Fatalf("no bytecode: %v", err)
		}
		if got := runFiles(t, files); got != "same\n" {
			t.Fatalf("ran %q", got)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || !strings.HasSuffix(entries[0].Name(), ".qbc") {
		t.Fatalf("cache folder holds %v, want one .qbc file", entries)
	}
	// A start either waited for the one compile or read its file.
	if n := c.n.Load(); n != 1 {
		t.Fatalf("%d compiles for %d starts at once, want 1", n, starts)
	}
}

// The identity of Check's rules follows each of its inputs: an import
// allowed or not, the stamp's pattern, the oldest SDK, esbuild's
// version and the code's own name each change it; the order of the
// imports does not.
func TestCheckRulesFollowTheirInputs(t *testing.T) {
	imports := map[string]bool{"node:fs": true, "node:readline": true}
	base := rulesIdentity(imports, stamp.String(), [2]int{0, 3}, "esbuild v1", "logic 1")
	for name, id := range map[string]string{
		"another import allowed": rulesIdentity(map[string]bool{"node:fs": true, "node:readline": true, "node:os": true}, stamp.String(), [2]int{0, 3}, "esbuild v1", "logic 1"),
		"an import no longer":    rulesIdentity(map[string]bool{"node:fs": true}, stamp.String(), [2]int{0, 3}, "esbuild v1", "logic 1"),
		"an import set false":    rulesIdentity(map[string]bool{"node:fs": true, "node:readline": false}, stamp.String(), [2]int{0, 3}, "esbuild v1", "logic 1"),
		"another stamp":          rulesIdentity(imports, stamp.String()+"x", [2]int{0, 3}, "esbuild v1", "logic 1"),
		"another oldest minor":   rulesIdentity(imports, stamp.String(), [2]int{0, 4}, "esbuild v1", "logic 1"),
		"another oldest major":   rulesIdentity(imports, stamp.String(), [2]int{1, 3}, "esbuild v1", "logic 1"),
		"another esbuild":        rulesIdentity(imports, stamp.String(), [2]int{0, 3}, "esbuild v2", "logic 1"),
		"another logic":          rulesIdentity(imports, stamp.String(), [2]int{0, 3}, "esbuild v1", "logic 2"),
	} {
		if id == base {
			t.Errorf("%s: the identity of Check's rules did not change", name)
		}
	}
	again := rulesIdentity(map[string]bool{"node:readline": true, "node:fs": true}, stamp.String(), [2]int{0, 3}, "esbuild v1", "logic 1")
	if again != base {
		t.Error("the same rules gave another identity")
	}
	// What keys the cache is those inputs as Check uses them.
	if got, want := checkRules(), rulesIdentity(allowed, stamp.String(), minSDK, esbuildVersion(), checkLogic); got != want {
		t.Fatalf("checkRules %s, from Check's inputs %s", got, want)
	}
}

// esbuild's version is read from the binary's module information; a
// test binary has none of its dependencies, so the marker stands in.
func TestEsbuildVersionOfThisBinary(t *testing.T) {
	got := esbuildVersion()
	if got != noBuildInfo && !strings.HasPrefix(got, esbuildModule+" v") {
		t.Fatalf("esbuild version %q", got)
	}
}

// The stamp rule's oldest SDK is minSDK: one minor older is refused,
// minSDK itself is not.
func TestStampRuleIsMinSDK(t *testing.T) {
	at := func(major, minor int) []byte {
		return []byte(fmt.Sprintf("/*! @escouade-dev/plugin v%d.%d.0 */\n", major, minor))
	}
	if err := checkStamp(at(minSDK[0], minSDK[1])); err != nil {
		t.Fatalf("minSDK refused: %v", err)
	}
	if err := checkStamp(at(minSDK[0], minSDK[1]-1)); err == nil {
		t.Fatal("the SDK before minSDK was let through")
	}
}

// forgeBadBytecode replaces the cache file of m's bundle in dir by one
// with its key and a matching digest around a bundle frame QuickJS does
// not read (a bytecode version it does not know): what a round-trip bug
// would leave.
func forgeBadBytecode(t *testing.T, m *manifest.Manifest, dir string, r *engineRuntime) string {
	t.Helper()
	src, rel, err := readBundle(m)
	if err != nil {
		t.Fatal(err)
	}
	good, err := compileOn(r)(BundleFS(src, rel))
	if err != nil {
		t.Fatal(err)
	}
	b, err := parseCompiled(good)
	if err != nil {
		t.Fatal(err)
	}
	key := cacheKey(src, rel)
	file := filepath.Join(dir, fmt.Sprintf("%x.qbc", key))
	bad := encodeCache(key, bytecode{runtime: b.runtime, bundle: []byte{0xfe, 0xfe, 0xfe, 0xfe}})
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// A cache file valid by its key and digest whose bytecode does not load
// is mounted (nothing before the engine can tell), ends the start, and is
// named by the /bundle so that the host can drop it.
func TestBytecodeThatDoesNotLoad(t *testing.T) {
	r := sharedRuntime(t, true)
	m := pluginDir(t, `process.stdout.write('fine\n')`)
	dir := t.TempDir()
	file := forgeBadBytecode(t, m, dir, r)
	c := &countingCompile{r: r}
	files, err := New().CachedBundle(m, dir, c.compile)
	if err != nil {
		t.Fatal(err)
	}
	if n := c.n.Load(); n != 0 {
		t.Fatalf("%d compiles: the forged file was not taken", n)
	}
	if got := files.(cachedFS).BytecodeFile(); got != file {
		t.Fatalf("bytecode file %q, want %q", got, file)
	}
	in := launchFiles(t, files, instanceOptions{})
	in.runTurn(nil)
	if in.exitCode() != ExitCrash || !strings.Contains(in.stderr.String(), "version") {
		t.Fatalf("exit %d, stderr %s; want QuickJS's refusal of the bytecode's version", in.exitCode(), in.stderr.String())
	}
}

// A temporary file a killed write left behind is removed by the next
// write once it is an hour old; a recent one, maybe another process's
// write under way, is left alone.
func TestStaleTempFilesRemoved(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "123"+tempSuffix)
	recent := filepath.Join(dir, "456"+tempSuffix)
	for _, name := range []string{old, recent} {
		if err := os.WriteFile(name, []byte("half"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now()
	if err := os.Chtimes(old, now.Add(-2*staleTemp), now.Add(-2*staleTemp)); err != nil {
		t.Fatal(err)
	}
	m := pluginDir(t, `process.stdout.write('ok\n')`)
	if _, err := New().CachedBundle(m, dir, compileOn(sharedRuntime(t, true))); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the stale temporary file is still there: %v", err)
	}
	if _, err := os.Stat(recent); err != nil {
		t.Fatalf("a recent temporary file was removed: %v", err)
	}
	if got := len(cacheFiles(t, dir)); got != 1 {
		t.Fatalf("%d cache files, want 1", got)
	}
}
