package conformance

import (
	"errors"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/manifest"
)

// Each kind of program gets a start fix of its own: run.command's rules
// are never offered to a bundle or a module.
func TestTheStartFixFollowsTheKindOfProgram(t *testing.T) {
	js := &manifest.Manifest{Run: &manifest.Run{JS: "dist/plugin.mjs"}}
	wasm := &manifest.Manifest{Run: &manifest.Run{WASM: "main.c"}}
	rust := &manifest.Manifest{Dir: "rusty", Run: &manifest.Run{WASM: "Cargo.toml"}}
	process := &manifest.Manifest{Run: &manifest.Run{Command: []string{"./nowhere"}}}
	tests := []struct {
		name string
		m    *manifest.Manifest
		err  string
		want string
	}{
		{"a bundle importing node:child_process", js, `dist/plugin.mjs:1:22: imports "node:child_process": a run.js bundle may import only node:fs and node:readline`, "p.fetch, p.sleep, p.readFile"},
		{"a bundle with an export", js, "dist/plugin.mjs exports x: a run.js bundle has no exports", "remove the export keyword"},
		{"a missing bundle", js, "dist/plugin.mjs: no such file", `"run": {"js": "dist/plugin.mjs"}`},
		{"a missing plugin.wasm", wasm, "its folder has no plugin.wasm", cModuleBuild},
		{"a missing plugin.wasm of the Rust kit", rust, "its folder has no plugin.wasm", "escouade-plugin build rusty"},
		{"a Rust module's import", rust, "its module imports wasi_unstable.fd_write, which Escouade does not provide", "escouade-plugin build rusty"},
		{"a C import of env", wasm, "its module imports env.get_time, which Escouade does not provide", "define get_time in the module"},
		{"another module's import", wasm, "its module imports wasi_unstable.fd_write, which Escouade does not provide", "wasm32-wasip1"},
		{"no entry point", wasm, "its module exports neither escouade-turn (a reactor) nor _start (a command)", "export an entry point"},
		{"a process", process, "fork/exec ./nowhere: no such file or directory", `a first element starting with "./"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fix := startFix(tt.m, errors.New(tt.err))
			if !strings.Contains(fix, tt.want) {
				t.Errorf("fix %q lacks %q", fix, tt.want)
			}
			if tt.m == rust && (strings.Contains(fix, "go build") || strings.Contains(fix, "clang")) {
				t.Errorf("fix %q names another kind's build", fix)
			}
			if tt.m != process && strings.Contains(fix, "run.command") {
				t.Errorf("fix %q speaks of run.command", fix)
			}
		})
	}
}
