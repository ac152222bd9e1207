package modules

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/escouade-dev/escouade-plugin/host/wasm"
	"github.com/escouade-dev/escouade-plugin/manifest"
)

// The builds of the kinds of program, told apart here once: the CLI's
// run, test, install, build and dev, and the bench's fixes all name the
// build of a plugin's own kind from Build (docs/CLI.md#build).
//
//	run.wasm naming Cargo.toml   escouade-plugin build DIR (cargo, then the cache)
//	run.wasm naming a .go file   the Go kit's line, GOOS=wasip1 … -buildmode=c-shared
//	run.wasm naming a .c file    clang --target=wasm32-wasi
//	run.js with a package.json   the JS SDK's build, npx escouade-plugin-build
//	run.js without one           a bundle written by hand: nothing to build
//	run.command, no run          nothing to build
const (
	GoBuildLine   = "GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o plugin.wasm ."
	CBuildLine    = "clang --target=wasm32-wasi -O2 -o plugin.wasm main.c"
	SDKBuildLine  = "npx escouade-plugin-build"
	CargoManifest = "Cargo.toml"
)

// BuildKind names how a plugin's program is built.
type BuildKind string

const (
	BuildNone    BuildKind = ""      // nothing to build: a process, a declarative or hand-written bundle
	BuildCargo   BuildKind = "cargo" // the Rust kit: escouade-plugin build
	BuildGo      BuildKind = "go"    // the Go kit as a module
	BuildC       BuildKind = "c"     // C with wasi-libc
	BuildJSSDK   BuildKind = "js"    // the JS SDK's build
	BuildUnknown BuildKind = "wasm"  // a module from a source this host does not recognise
)

// MaxSourceEntries bounds the walk of a plugin's folder that looks for a
// source newer than its build: a folder of a million files is not walked
// at every run, only its first entries.
const MaxSourceEntries = 10000

// StaleSlack is how much newer than the build a source must be to be
// said newer: a clone or a checkout writes the sources and a committed
// build in one go, in whatever order, and that is not an edit after the
// build (git's own racy window is as wide).
const StaleSlack = 2 * time.Second

// skipped are folders that hold no source of the plugin's build: what a
// build makes or fetches.
var skipped = map[string]bool{".git": true, "node_modules": true, "target": true, "dist": true}

// Build is how the program of one plugin is made from its sources.
type Build struct {
	Kind BuildKind
	// Output is the file the build makes, relative to the plugin's
	// folder (plugin.wasm, the bundle run.js names), "" for BuildNone.
	Output string
	// Line is the command that makes Output, with the plugin's folder in
	// it: what every message about a missing or stale build names.
	Line string
	dir  string
	// sourceDir is the folder whose files are the sources (a Cargo.toml
	// in a subfolder is built there).
	sourceDir string
}

// BuildOf is the build of m's program.
func BuildOf(m *manifest.Manifest) Build {
	b := Build{dir: m.Dir, sourceDir: m.Dir}
	switch m.Run.Kind() {
	case manifest.RunWASM:
		b.Output = wasm.ModuleFile
		b.Kind, b.Line = wasmBuild(m)
		if b.Kind == BuildCargo {
			b.sourceDir = filepath.Dir(filepath.Join(m.Dir, filepath.FromSlash(m.Run.WASM)))
		}
	case manifest.RunJS:
		b.Output = m.Run.BundlePath()
		if isRegular(filepath.Join(m.Dir, "package.json")) {
			b.Kind, b.Line = BuildJSSDK, "cd "+m.Dir+" && "+SDKBuildLine
		}
	}
	return b
}

// wasmBuild tells a module's build by the source run.wasm names.
func wasmBuild(m *manifest.Manifest) (BuildKind, string) {
	src := filepath.Base(filepath.FromSlash(m.Run.WASM))
	in := "cd " + m.Dir + " && "
	switch {
	case src == CargoManifest:
		return BuildCargo, "escouade-plugin build " + m.Dir
	case strings.HasSuffix(src, ".go") || src == "go.mod":
		return BuildGo, in + GoBuildLine
	case strings.HasSuffix(src, ".c"):
		return BuildC, in + CBuildLine
	}
	return BuildUnknown, in + GoBuildLine + " (the Go kit), or " + in + CBuildLine + " (C with wasi-libc)"
}

// Missing says that the build's output is not in the folder, naming the
// build that makes it; nil when it is there or nothing is built.
func (b Build) Missing() error {
	if b.Output == "" {
		return nil
	}
	_, err := os.Lstat(filepath.Join(b.dir, filepath.FromSlash(b.Output)))
	if !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if b.Kind == BuildNone {
		return fmt.Errorf("its folder has no %s, the bundle run.js names: write it there, or build it from sources with the JS SDK (%s)", b.Output, SDKBuildLine)
	}
	return fmt.Errorf("its folder has no %s: it is not built yet; build it with %s", b.Output, b.Line)
}

// Stale says that a source changed after the build made its output: the
// output does not hold the change. "" when it is up to date, missing, or
// nothing is built. Only the first MaxSourceEntries entries of the folder
// are looked at.
func (b Build) Stale() string {
	if b.Kind == BuildNone {
		return ""
	}
	out, err := os.Stat(filepath.Join(b.dir, filepath.FromSlash(b.Output)))
	if err != nil {
		return ""
	}
	src, at := b.newestSource()
	if src == "" || at.Sub(out.ModTime()) <= StaleSlack {
		return ""
	}
	return fmt.Sprintf("%s is older than its source %s (changed %s after the build): the change is not in it; rebuild it with %s",
		b.Output, src, at.Sub(out.ModTime()).Round(time.Second), b.Line)
}

// newestSource is the source file changed last, relative to the plugin's
// folder, and when.
func (b Build) newestSource() (newest string, at time.Time) {
	seen := 0
	filepath.WalkDir(b.sourceDir, func(p string, d fs.DirEntry, err error) error {
		seen++
		if err != nil || seen > MaxSourceEntries {
			return filepath.SkipAll
		}
		if d.IsDir() {
			if p != b.sourceDir && skipped[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(b.sourceDir, p)
		if !d.Type().IsRegular() || !b.isSource(filepath.ToSlash(rel)) {
			return nil
		}
		if info, err := d.Info(); err == nil && info.ModTime().After(at) {
			newest, _ = filepath.Rel(b.dir, p)
			at = info.ModTime()
		}
		return nil
	})
	return filepath.ToSlash(newest), at
}

// isSource reports whether the file rel, relative to the source folder,
// goes into the build of kind b.Kind.
func (b Build) isSource(rel string) bool {
	name := path.Base(rel)
	switch b.Kind {
	case BuildCargo:
		return rel == CargoManifest || rel == "build.rs" || strings.HasPrefix(rel, "src/")
	case BuildGo:
		return strings.HasSuffix(name, ".go") || name == "go.mod" || name == "go.sum"
	case BuildC:
		return strings.HasSuffix(name, ".c") || strings.HasSuffix(name, ".h")
	case BuildJSSDK:
		return strings.HasPrefix(rel, "src/") || rel == "package.json" || rel == "tsconfig.json"
	}
	return false
}

func isRegular(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.Mode().IsRegular()
}
