package jsrt

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/escouade-dev/escouade-plugin/manifest"
)

func TestCheck(t *testing.T) {
	const name = "dist/plugin.mjs"
	cases := []struct {
		name, src, want string
	}{
		{"fs and readline", "/*! @escouade-dev/plugin v0.3.0 */\nimport { readFileSync } from 'node:fs';\nimport * as rl from 'node:readline';\nimport fs from 'node:fs';\nconsole.log(readFileSync, rl, fs);", ""},
		{"no imports, no stamp", "console.log(1)", ""},
		{"a newer SDK", "/*! @escouade-dev/plugin v1.4.2-beta.1 */ console.log(1)", ""},
		{"child_process", "import { spawn } from 'node:child_process';\nspawn('ls');",
			`dist/plugin.mjs:1:22: imports "node:child_process": a run.js bundle may import only node:fs and node:readline`},
		{"a URL", "import x from 'https://cdn.example.com/x.js';\nx();",
			`dist/plugin.mjs:1:14: imports "https://cdn.example.com/x.js": a run.js bundle may import only node:fs and node:readline`},
		{"bare fs", "import fs from 'fs'; fs.readFileSync('x')",
			`dist/plugin.mjs:1:15: imports "fs": a run.js bundle may import only node:fs and node:readline`},
		{"require", "const fs = require('node:fs'); fs.readFileSync('x')",
			`dist/plugin.mjs:1:19: requires "node:fs": a run.js bundle may import only node:fs and node:readline`},
		{"dynamic import", "await import('./other.mjs')",
			`dist/plugin.mjs:1:13: imports (dynamically) "./other.mjs": a run.js bundle may import only node:fs and node:readline`},
		{"export default", "export default function main() {}",
			`dist/plugin.mjs: has an export ("default"): a run.js bundle has no exports`},
		{"named exports", "export const a = 1; export function b() {}",
			`dist/plugin.mjs: has exports ("a", "b"): a run.js bundle has no exports`},
		{"re-export", "export { readFileSync } from 'node:fs'",
			`dist/plugin.mjs: has an export ("readFileSync"): a run.js bundle has no exports`},
		{"SDK 0.2", "/*! @escouade-dev/plugin v0.2.7 */\nconsole.log(1)",
			"built with @escouade-dev/plugin 0.2: rebuild it with @escouade-dev/plugin 0.3 or later"},
		{"SDK 0.1", "/*! @escouade-dev/plugin v0.1.0 */ import 'node:child_process'",
			"built with @escouade-dev/plugin 0.1: rebuild it with @escouade-dev/plugin 0.3 or later"},
		{"syntax error", "const a = 1;\nlet b = (;\n",
			`dist/plugin.mjs:2:9: Unexpected ";"`},
		{"unterminated string", "console.log('x);",
			`dist/plugin.mjs:1:16: Unterminated string literal`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Check([]byte(c.src), name)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != c.want {
				t.Errorf("Check:\n got %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestBundle(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "dist"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := "import { readFileSync } from 'node:fs'; console.log(readFileSync)"
	if err := os.WriteFile(filepath.Join(dir, "dist", "plugin.mjs"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.mjs"), []byte("export default 1"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := New()
	m := &manifest.Manifest{Dir: dir, Run: &manifest.Run{JS: "dist/plugin.mjs"}}
	b, err := e.Bundle(m)
	if err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{
		MainFile:    src,
		MetaFile:    `{"url":"file:///plugin/dist/plugin.mjs"}`,
		RuntimeFile: string(runtimeJS),
	} {
		got, err := fs.ReadFile(b, file)
		if err != nil || string(got) != want {
			t.Errorf("%s: %q, %v", file, got, err)
		}
	}
	entries, err := fs.ReadDir(b, ".")
	if err != nil || len(entries) != 3 {
		t.Errorf("ReadDir: %v, %v", entries, err)
	}

	for _, c := range []struct {
		js, want string
	}{
		{"bad.mjs", `bad.mjs: has an export ("default"): a run.js bundle has no exports`},
		{"missing.mjs", "run.js: cannot read missing.mjs: no such file or directory"},
		{"../outside.mjs", `run.js "../outside.mjs" is not inside the plugin's folder`},
	} {
		_, err := e.Bundle(&manifest.Manifest{Dir: dir, Run: &manifest.Run{JS: c.js}})
		if err == nil || err.Error() != c.want {
			t.Errorf("Bundle(%s): %v, want %q", c.js, err, c.want)
		}
	}
	if _, err := e.Bundle(&manifest.Manifest{Dir: dir}); err == nil {
		t.Error("Bundle without run.js: no error")
	}
}

func FuzzCheck(f *testing.F) {
	for _, s := range []string{"console.log(1)", "import 'node:fs'", "export default 1", "/*! @escouade-dev/plugin v0.2.0 */", "let (", "import(x)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if err := Check([]byte(src), "p.mjs"); err != nil && err.Error() == "" {
			t.Error("an empty refusal")
		}
	})
}

func TestModuleSHA256(t *testing.T) {
	if got, want := sha256Hex(New().Module()), ModuleSHA256(); got != want {
		t.Errorf("quickjs.wasm has SHA-256 %s, quickjs.wasm.sha256 says %s", got, want)
	}
}

// TestReproducibleBuild rebuilds the engine from Debian's sources and fails
// on any byte of difference. It needs clang-19, lld-19, wasi-libc,
// libclang-rt-19-dev-wasm32 and Debian's mirror (or QUICKJS_ORIG).
func TestReproducibleBuild(t *testing.T) {
	if os.Getenv("ESCOUADE_REBUILD_QUICKJS") != "1" {
		t.Skip("set ESCOUADE_REBUILD_QUICKJS=1 to rebuild quickjs.wasm and compare")
	}
	out, err := exec.Command("sh", "build/build.sh", "--check").CombinedOutput()
	if err != nil {
		t.Fatalf("build/build.sh --check: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
