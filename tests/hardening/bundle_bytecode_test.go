//go:build linux

package hardening

import (
	"bytes"
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
	if got := urlOf(); got != want {
		t.Fatalf("from bytecode: url %q, want %q", got, want)
	}
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
}
