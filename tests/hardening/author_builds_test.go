//go:build linux

package hardening

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A plugin whose program is not built yet gets the build of its own kind
// named by run, install and test (docs/CLI.md#build): not another
// language's build line, not the system's "no such file".

func rustFolder(t *testing.T) string {
	t.Helper()
	return plugin{id: "dev.escouade.hardening.rusty", manifest: map[string]any{"name": "rusty", "run": map[string]any{"wasm": "Cargo.toml"}},
		files: map[string]string{"Cargo.toml": "[package]\nname = \"rusty\"\n", "src/lib.rs": "// a plugin\n"}}.write(t)
}

func sdkFolder(t *testing.T) string {
	t.Helper()
	return plugin{id: "dev.escouade.hardening.ts", manifest: map[string]any{"name": "ts", "run": map[string]any{"js": "dist/plugin.mjs"}},
		files: map[string]string{"package.json": `{"type":"module"}`, "src/plugin.ts": "// a plugin\n"}}.write(t)
}

func bareTSFolder(t *testing.T) string {
	t.Helper()
	return plugin{id: "dev.escouade.hardening.bare", manifest: map[string]any{"name": "bare", "run": map[string]any{"js": "dist/plugin.mjs"}},
		files: map[string]string{"src/plugin.ts": "// a plugin\n"}}.write(t)
}

func TestAnUnbuiltPluginIsToldItsKindsBuild(t *testing.T) {
	kinds := []struct {
		name, build string
		folder      func(*testing.T) string
		notWanted   []string
	}{
		{"rust", "escouade-plugin build ", rustFolder, []string{"go build", "clang"}},
		{"ts", "npx escouade-plugin-build", sdkFolder, []string{"no such file or directory", "go build"}},
		{"ts without package.json", "npx escouade-plugin-build", bareTSFolder, []string{"no such file or directory", "go build"}},
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			dir := k.folder(t)
			want := k.build
			if k.name == "rust" {
				want += dir
			}
			check := func(command, out string, code int) {
				t.Helper()
				if code == 0 {
					t.Errorf("%s exited 0: %s", command, out)
				}
				if !strings.Contains(out, want) {
					t.Errorf("%s does not name %q:\n%s", command, want, out)
				}
				for _, bad := range k.notWanted {
					if strings.Contains(out, bad) {
						t.Errorf("%s says %q:\n%s", command, bad, out)
					}
				}
			}
			_, stderr, code := cli(t, "run", dir, "--home", t.TempDir())
			check("run (stderr)", stderr, code)
			_, stderr, code = cli(t, "install", dir, "--home", t.TempDir())
			check("install (stderr)", stderr, code)
			stdout, _, code := cli(t, "test", dir, "--home", t.TempDir())
			check("test", stdout, code)
		})
	}
}

// A plugin.wasm or a bundle older than one of its sources is said, with
// the build to run again, before the program runs.
func TestAStaleBuildIsSaid(t *testing.T) {
	bundle, err := os.ReadFile("../../examples/hand-js/dist/plugin.mjs")
	if err != nil {
		t.Fatal(err)
	}
	rust := rustFolder(t)
	writeFile(t, filepath.Join(rust, "plugin.wasm"), []byte("\x00asm\x01\x00\x00\x00"))
	ts := sdkFolder(t)
	writeFile(t, filepath.Join(ts, "dist", "plugin.mjs"), bundle)
	built := time.Now().Add(-time.Hour)
	for _, f := range []string{filepath.Join(rust, "plugin.wasm"), filepath.Join(ts, "dist", "plugin.mjs")} {
		if err := os.Chtimes(f, built, built); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct{ dir, output, build string }{
		{rust, "plugin.wasm", "escouade-plugin build " + rust},
		{ts, "dist/plugin.mjs", "npx escouade-plugin-build"},
	} {
		want := tt.output + " is older than its source "
		for _, command := range []string{"run", "test", "install"} {
			_, stderr, _ := cli(t, command, tt.dir, "--home", t.TempDir())
			if !strings.Contains(stderr, want) || !strings.Contains(stderr, "warning") || !strings.Contains(stderr, tt.build) {
				t.Errorf("%s %s: stderr lacks %q:\n%s", command, tt.dir, want, stderr)
			}
		}
	}
	// Built after its last edit, it is not said.
	now := time.Now()
	if err := os.Chtimes(filepath.Join(ts, "dist", "plugin.mjs"), now, now); err != nil {
		t.Fatal(err)
	}
	if _, stderr, _ := cli(t, "run", ts, "--home", t.TempDir()); strings.Contains(stderr, "older than") {
		t.Errorf("a fresh bundle is said stale:\n%s", stderr)
	}
}
