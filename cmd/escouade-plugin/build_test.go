package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// jsPlugin writes a run.js plugin whose bundle is src.
func jsPlugin(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	manifest := `{"id":"dev.test.js","name":"js","version":"1.0.0","escouade":{"api":"1"},"run":{"js":"dist/plugin.mjs"},"activation":["onCall"]}`
	if err := os.WriteFile(filepath.Join(dir, "escouade-plugin.json"), []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "dist"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "dist", "plugin.mjs"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestBuildRefusesABundleNamingWhy(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"child_process", `import cp from "node:child_process"; cp.exec("x")`, `imports "node:child_process"`},
		{"a URL", `import x from "https://example.org/x.mjs"; x()`, `https://example.org/x.mjs`},
		{"export default", `export default function () {}`, `export`},
		{"SDK 0.2", "/*! @escouade-dev/plugin v0.2.9 */\nconsole.log(1)", "built with @escouade-dev/plugin 0.2: rebuild it with @escouade-dev/plugin 0.3 or later"},
		{"syntax", `let = = 1`, `dist/plugin.mjs:1:`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, "", "build", jsPlugin(t, tt.src), "--home", t.TempDir())
			if code != exitFail || !strings.Contains(out, "not compiled: ") || !strings.Contains(out, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 1 and %q", code, out, errOut, tt.want)
			}
		})
	}
}

func TestBuildCompilesABundleAndSaysNothingForAProcess(t *testing.T) {
	home := t.TempDir()
	code, out, errOut := runCLI(t, "", "build", filepath.Join("..", "..", "examples", "hand-js"), "--home", home)
	if code != exitOK || !strings.Contains(out, "compiled into the cache") {
		t.Fatalf("hand-js: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if entries, _ := os.ReadDir(filepath.Join(home, "wasm-cache")); len(entries) == 0 {
		t.Errorf("nothing in the compile cache under the home")
	}
	code, out, _ = runCLI(t, "", "build", filepath.Join("..", "..", "examples", "go-notes"), "--home", home)
	if code != exitOK || !strings.Contains(out, "nothing to compile: its program is a process") {
		t.Errorf("go-notes: exit %d, stdout %q", code, out)
	}
}

func TestInstallRefusesABundleTheHostWouldNotRun(t *testing.T) {
	home := t.TempDir()
	code, out, errOut := runCLI(t, "", "install", jsPlugin(t, `export const x = 1`), "--home", home)
	if code != exitFail || !strings.Contains(errOut, "not installed: ") || !strings.Contains(errOut, "export") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	_, list, _ := runCLI(t, "", "list", "--home", home)
	if strings.Contains(list, "dev.test.js") {
		t.Errorf("a refused plugin was installed: %s", list)
	}
}
