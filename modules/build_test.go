package modules

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/manifest"
)

func writeAt(t *testing.T, dir, rel string, at time.Time) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, at, at); err != nil {
		t.Fatal(err)
	}
}

// Each kind is told its own build, once, from the source run names.
func TestBuildOfTellsTheKindsApart(t *testing.T) {
	sdk := t.TempDir()
	writeAt(t, sdk, "package.json", time.Now())
	tests := []struct {
		name string
		m    *manifest.Manifest
		kind BuildKind
		line string
	}{
		{"rust", &manifest.Manifest{Dir: "p", Run: &manifest.Run{WASM: "Cargo.toml"}}, BuildCargo, "escouade-plugin build p"},
		{"rust in a subfolder", &manifest.Manifest{Dir: "p", Run: &manifest.Run{WASM: "crate/Cargo.toml"}}, BuildCargo, "escouade-plugin build p"},
		{"go", &manifest.Manifest{Dir: "p", Run: &manifest.Run{WASM: "main.go"}}, BuildGo, GoBuildLine},
		{"c", &manifest.Manifest{Dir: "p", Run: &manifest.Run{WASM: "main.c"}}, BuildC, CBuildLine},
		{"another source", &manifest.Manifest{Dir: "p", Run: &manifest.Run{WASM: "plugin.zig"}}, BuildUnknown, CBuildLine},
		{"the JS SDK", &manifest.Manifest{Dir: sdk, Run: &manifest.Run{JS: "dist/plugin.mjs"}}, BuildJSSDK, SDKBuildLine},
		{"a bundle by hand", &manifest.Manifest{Dir: t.TempDir(), Run: &manifest.Run{JS: "dist/plugin.mjs"}}, BuildNone, ""},
		{"a process", &manifest.Manifest{Dir: "p", Run: &manifest.Run{Command: []string{"./x"}}}, BuildNone, ""},
		{"declarative", &manifest.Manifest{Dir: "p"}, BuildNone, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := BuildOf(tt.m)
			if b.Kind != tt.kind || !strings.Contains(b.Line, tt.line) || (tt.line == "" && b.Line != "") {
				t.Errorf("BuildOf = %q %q, want %q with %q", b.Kind, b.Line, tt.kind, tt.line)
			}
			if tt.kind == BuildCargo && (strings.Contains(b.Line, "go build") || strings.Contains(b.Line, "clang")) {
				t.Errorf("a Rust plugin is told another kind's build: %q", b.Line)
			}
		})
	}
}

func TestMissingNamesTheBuild(t *testing.T) {
	dir := t.TempDir()
	m := &manifest.Manifest{Dir: dir, Run: &manifest.Run{WASM: "Cargo.toml"}}
	err := BuildOf(m).Missing()
	if err == nil || !strings.Contains(err.Error(), "escouade-plugin build "+dir) {
		t.Fatalf("Missing = %v", err)
	}
	writeAt(t, dir, "plugin.wasm", time.Now())
	if err := BuildOf(m).Missing(); err != nil {
		t.Errorf("Missing with plugin.wasm there = %v", err)
	}
	hand := &manifest.Manifest{Dir: t.TempDir(), Run: &manifest.Run{JS: "dist/plugin.mjs"}}
	if err := BuildOf(hand).Missing(); err == nil || !strings.Contains(err.Error(), "dist/plugin.mjs") {
		t.Errorf("a hand bundle's Missing = %v", err)
	}
}

// A source edited after the build is named; what a build makes or
// fetches (target/, node_modules/, dist/) and other files are not sources.
func TestStaleNamesTheNewestSource(t *testing.T) {
	built := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	dir := t.TempDir()
	m := &manifest.Manifest{Dir: dir, Run: &manifest.Run{WASM: "Cargo.toml"}}
	writeAt(t, dir, "plugin.wasm", built)
	writeAt(t, dir, "Cargo.toml", built.Add(-time.Hour))
	writeAt(t, dir, "src/lib.rs", built.Add(-time.Minute))
	writeAt(t, dir, "target/release/x.rs", built.Add(time.Hour))
	writeAt(t, dir, "README.md", built.Add(time.Hour))
	if s := BuildOf(m).Stale(); s != "" {
		t.Fatalf("an up-to-date build is said stale: %s", s)
	}
	writeAt(t, dir, "src/deep/mod.rs", built.Add(2*time.Minute))
	s := BuildOf(m).Stale()
	if !strings.Contains(s, "plugin.wasm is older than its source src/deep/mod.rs") || !strings.Contains(s, "escouade-plugin build") {
		t.Errorf("Stale = %q", s)
	}

	js := t.TempDir()
	jm := &manifest.Manifest{Dir: js, Run: &manifest.Run{JS: "dist/plugin.mjs"}}
	writeAt(t, js, "package.json", built.Add(-time.Hour))
	writeAt(t, js, "dist/plugin.mjs", built)
	writeAt(t, js, "node_modules/x/index.js", built.Add(time.Hour))
	if s := BuildOf(jm).Stale(); s != "" {
		t.Fatalf("an up-to-date bundle is said stale: %s", s)
	}
	writeAt(t, js, "src/plugin.ts", built.Add(StaleSlack)) // written with it, as a checkout does
	if s := BuildOf(jm).Stale(); s != "" {
		t.Fatalf("a source written with the bundle is said newer: %s", s)
	}
	writeAt(t, js, "src/plugin.ts", built.Add(StaleSlack+time.Second))
	if s := BuildOf(jm).Stale(); !strings.Contains(s, "src/plugin.ts") || !strings.Contains(s, SDKBuildLine) {
		t.Errorf("Stale = %q", s)
	}
}

// A folder past MaxSourceEntries is walked only that far: a hostile
// folder cannot make each run walk for ever.
func TestStaleWalksABoundedFolder(t *testing.T) {
	if testing.Short() {
		t.Skip("writes MaxSourceEntries files")
	}
	built := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	dir := t.TempDir()
	m := &manifest.Manifest{Dir: dir, Run: &manifest.Run{WASM: "main.c"}}
	writeAt(t, dir, "plugin.wasm", built)
	if err := os.MkdirAll(filepath.Join(dir, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range MaxSourceEntries {
		if err := os.WriteFile(filepath.Join(dir, "a", strconv.Itoa(i)+".txt"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeAt(t, dir, "z/late.c", built.Add(time.Hour)) // walked after a/: past the bound
	if s := BuildOf(m).Stale(); s != "" {
		t.Errorf("the walk went past its bound: %s", s)
	}
}

// The stale check runs before every run, test and install: its cost on a
// Rust crate of 1000 sources.
func BenchmarkStale(b *testing.B) {
	dir := b.TempDir()
	m := &manifest.Manifest{Dir: dir, Run: &manifest.Run{WASM: "Cargo.toml"}}
	built := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for i := range 1000 {
		p := filepath.Join(dir, "src", "m"+strconv.Itoa(i%10), strconv.Itoa(i)+".rs")
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, nil, 0o644)
		os.Chtimes(p, built, built)
	}
	for _, f := range []string{"Cargo.toml", "plugin.wasm"} {
		os.WriteFile(filepath.Join(dir, f), nil, 0o644)
		os.Chtimes(filepath.Join(dir, f), built, built)
	}
	build := BuildOf(m)
	for b.Loop() {
		if build.Stale() != "" {
			b.Fatal("said stale")
		}
	}
}
