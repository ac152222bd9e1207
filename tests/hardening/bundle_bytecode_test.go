//go:build linux

package hardening

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bytecodeBundle answers initialize and x/url, and breaks a limit on
// spin/forever (the turn's) and eat/memory (the memory's).
const bytecodeBundle = `import { createInterface } from 'node:readline';
const send = (m) => process.stdout.write(JSON.stringify(m) + '\n');
createInterface({ input: process.stdin }).on('line', (l) => {
  const m = JSON.parse(l);
  if (m.method === 'initialize') return send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: 1 } });
  if (m.method === 'spin/forever') for (;;) {}
  if (m.method === 'eat/memory') { const a = []; for (;;) a.push('x'.repeat(1 << 20) + a.length); }
  if (m.id !== undefined) send({ jsonrpc: '2.0', id: m.id, result: { url: import.meta.url } });
});
`

// bytecodeFiles are the bytecode cache files under home.
func bytecodeFiles(t *testing.T, home string) []string {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(home, "wasm-cache", "js-bytecode", "*", "*.qbc"))
	return names
}

// A run.js plugin's bytecode is kept in the home's cache by its first
// run, read back by the next ones, and a damaged file is replaced; from
// the bytecode, the bundle's import.meta.url is the same and the turn
// limit and the memory cap still end a runaway instance.
func TestBundleBytecodeThroughRun(t *testing.T) {
	dir := plugin{
		manifest: map[string]any{"name": "bytecode", "run": map[string]any{"js": "dist/plugin.mjs"}},
		id:       "dev.escouade.hardening.bytecode",
		files:    map[string]string{"dist/plugin.mjs": bytecodeBundle},
	}.write(t)
	home := t.TempDir()
	urlOf := func() string {
		s := runHome(t, dir, home)
		defer s.close()
		a := s.call("u", "x/url", nil)
		res, _ := a["result"].(map[string]any)
		url, _ := res["url"].(string)
		return url
	}
	const want = "file:///plugin/dist/plugin.mjs"
	if got := urlOf(); got != want {
		t.Fatalf("first run: url %q, want %q", got, want)
	}
	files := bytecodeFiles(t, home)
	if len(files) != 1 {
		t.Fatalf("after the first run, bytecode files %v; want one", files)
	}
	good, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	kept := statFile(t, files[0])
	if got := urlOf(); got != want {
		t.Fatalf("from bytecode: url %q, want %q", got, want)
	}
	// A run that missed the file would have compiled and renamed a new
	// one into place: the same inode and time say the run took this one.
	unchanged(t, "the second run", files[0], kept, good)
	// A damaged file is never handed to the engine: the run starts from
	// the source and writes the file again.
	damaged := bytes.Repeat([]byte{0xff}, len(good))
	writeFile(t, files[0], damaged)
	if got := urlOf(); got != want {
		t.Fatalf("with a damaged cache file: url %q, want %q", got, want)
	}
	if now, _ := os.ReadFile(files[0]); !bytes.Equal(now, good) {
		t.Fatal("the damaged cache file was not written again")
	}
	kept = statFile(t, files[0])

	for method, sentence := range map[string]string{
		"spin/forever": turnSentence,
		"eat/memory":   "its instance ran out of its 64 MB of memory",
	} {
		s := runHome(t, dir, home, "--follow")
		s.send(`{"op":"call","id":"c","method":"` + method + `"}`)
		crash := s.next("the crash line", func(l line) bool {
			return l.str("op") == "journal-line" && strings.Contains(l.str("line"), " crash ")
		})
		if !strings.Contains(crash.str("line"), sentence) {
			t.Errorf("%s from bytecode: crash line %q, want %q", method, crash.str("line"), sentence)
		}
		s.close()
	}
	if got := bytecodeFiles(t, home); len(got) != 1 {
		t.Errorf("bytecode files %v; want the one", got)
	}
	// Both limits ended instances that started from that file.
	unchanged(t, "the runs past a limit", files[0], kept, good)
}

// statFile is file's inode and modification time.
func statFile(t *testing.T, file string) os.FileInfo {
	t.Helper()
	info, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// unchanged fails unless file is still the one before (same inode, same
// modification time) with the same bytes.
func unchanged(t *testing.T, after, file string, before os.FileInfo, content []byte) {
	t.Helper()
	now := statFile(t, file)
	if !os.SameFile(before, now) || !now.ModTime().Equal(before.ModTime()) {
		t.Fatalf("after %s the cache file was written again (inode or time changed): the cache was missed", after)
	}
	if data, _ := os.ReadFile(file); !bytes.Equal(data, content) {
		t.Fatalf("after %s the cache file changed", after)
	}
}

// A cache file whose name, key and digest hold but whose bytecode QuickJS
// cannot read back ends the start that reads it, which drops it and says
// so in the journal; the next start compiles from the source, answers,
// and keeps a fresh file.
func TestUnloadableBytecodeThroughRun(t *testing.T) {
	dir := plugin{
		manifest: map[string]any{"name": "unloadable", "run": map[string]any{"js": "dist/plugin.mjs"}},
		id:       "dev.escouade.hardening.unloadable",
		files:    map[string]string{"dist/plugin.mjs": bytecodeBundle},
	}.write(t)
	home := t.TempDir()
	s := runHome(t, dir, home)
	s.call("u", "x/url", nil)
	s.close()
	files := bytecodeFiles(t, home)
	if len(files) != 1 {
		t.Fatalf("bytecode files %v; want one", files)
	}
	good, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, files[0], unloadable(good))

	s = runHome(t, dir, home, "--follow")
	s.send(`{"op":"call","id":"c","method":"x/url"}`)
	drop := s.next("the line dropping the bytecode", func(l line) bool {
		return l.str("op") == "journal-line" && strings.Contains(l.str("line"), filepath.Base(files[0])+" is dropped")
	})
	if !strings.Contains(drop.str("line"), " wasm ") {
		t.Errorf("drop line %q, want a wasm line", drop.str("line"))
	}
	// The instance the host starts again, after that crash, compiles.
	a := s.call("u", "x/url", nil)
	if res, _ := a["result"].(map[string]any); res["url"] != "file:///plugin/dist/plugin.mjs" {
		t.Fatalf("after the drop: %v", a)
	}
	s.close()
	if now, _ := os.ReadFile(files[0]); !bytes.Equal(now, good) {
		t.Fatal("the run after the drop did not keep a fresh file")
	}
}

// unloadable is the cache file good with its own key and a digest that
// matches, around a bundle frame of a bytecode version QuickJS does not
// know: the file format is docs/protocol.md's (16 bytes of magic, the
// key's SHA-256, the payload's SHA-256, then the payload's two frames,
// each a 32-bit little-endian length and its bytes).
func unloadable(good []byte) []byte {
	const magicAndKey, header = 16 + sha256.Size, 16 + 2*sha256.Size
	payload := good[header:]
	runtimeFrame := payload[:4+binary.LittleEndian.Uint32(payload)]
	bad := binary.LittleEndian.AppendUint32(bytes.Clone(runtimeFrame), 4)
	bad = append(bad, 0xfe, 0xfe, 0xfe, 0xfe)
	digest := sha256.Sum256(bad)
	return append(append(bytes.Clone(good[:magicAndKey]), digest[:]...), bad...)
}
