package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/escouade-dev/escouade-plugin/host/wasm"
	"github.com/escouade-dev/escouade-plugin/manifest"
	rustkit "github.com/escouade-dev/escouade-plugin/sdk/rust"
)

// The Rust side of build: a run.wasm naming a Cargo.toml is built with
// cargo for wasm32-wasi, offline, from the crates Debian packages, and
// the module it makes becomes plugin.wasm beside the manifest.
const (
	cargoManifest = "Cargo.toml"
	rustTarget    = "wasm32-wasi"
	// debianRegistry is where Debian's librust-*-dev packages put their
	// crates, used as the crates.io registry when it is there.
	debianRegistry = "/usr/share/cargo/registry"
	// debianCargo and debianRustc are Debian's toolchain, which has the
	// wasm32 standard library once libstd-rust-dev-wasm32 is installed;
	// a rustup toolchain earlier in PATH may lack it.
	debianCargo = "/usr/bin/cargo"
	debianRustc = "/usr/bin/rustc"
	// installRust is what to run when no toolchain has the target.
	installRust = "apt-get install rustc cargo libstd-rust-dev-wasm32"
	// cargoTailLines is how many lines of cargo's output a failure quotes.
	cargoTailLines = 40
)

// cargoSource returns the path of the Cargo.toml that run.wasm names, or
// "" when the plugin is not built with cargo.
func cargoSource(m *manifest.Manifest) string {
	src := m.Run.WASM
	if m.Run.Kind() != manifest.RunWASM || filepath.Base(filepath.FromSlash(src)) != cargoManifest {
		return ""
	}
	return filepath.Join(m.Dir, filepath.FromSlash(src))
}

// rustToolchain is a cargo and the rustc it builds with.
type rustToolchain struct{ cargo, rustc string }

// findRust picks the toolchain: the cargo and rustc of PATH when that
// rustc has the wasm32-wasi target, else Debian's. It says what to install
// when none has it.
func findRust() (rustToolchain, error) {
	var candidates []rustToolchain
	if cargo, err := exec.LookPath("cargo"); err == nil {
		if rustc, err := exec.LookPath("rustc"); err == nil {
			candidates = append(candidates, rustToolchain{cargo, rustc})
		}
	}
	candidates = append(candidates, rustToolchain{debianCargo, debianRustc})
	var lacking []string
	for _, tc := range candidates {
		if !isFile(tc.cargo) || !isFile(tc.rustc) {
			continue
		}
		if hasTarget(tc.rustc) {
			return tc, nil
		}
		lacking = append(lacking, tc.rustc)
	}
	if len(lacking) == 0 {
		return rustToolchain{}, fmt.Errorf("%s needs cargo, which is not installed: %s", cargoManifest, installRust)
	}
	return rustToolchain{}, fmt.Errorf("the Rust standard library for %s is not installed (%s has no %s target): %s, or rustup target add %s",
		rustTarget, strings.Join(lacking, ", "), rustTarget, installRust, rustTarget)
}

func isFile(path string) bool {
	info, err := os.Stat(path)
	return err == nil && !info.IsDir()
}

// hasTarget reports whether rustc's sysroot holds the target's standard
// library.
func hasTarget(rustc string) bool {
	out, err := exec.Command(rustc, "--print", "sysroot").Output()
	if err != nil {
		return false
	}
	sysroot := strings.TrimSpace(string(out))
	info, err := os.Stat(filepath.Join(sysroot, "lib", "rustlib", rustTarget, "lib"))
	return err == nil && info.IsDir()
}

// buildCargo builds the crate at src for wasm32-wasi in release mode and
// writes the module to plugin.wasm in dir. progress gets cargo's lines
// (Compiling…); a failure quotes cargo's errors.
func buildCargo(ctx context.Context, home, dir, src string, progress func(string)) error {
	if !isFile(src) {
		return fmt.Errorf("run.wasm names %s, which is not there: write the crate's %s, or name the source of plugin.wasm", src, cargoManifest)
	}
	tc, err := findRust()
	if err != nil {
		return err
	}
	kit, err := writeRustKit(home)
	if err != nil {
		return fmt.Errorf("the Rust kit cannot be written under the home: %w", err)
	}
	say(progress, fmt.Sprintf("building %s with %s for %s…", src, tc.cargo, rustTarget))
	args := []string{"build", "--release", "--target", rustTarget, "--manifest-path", src,
		"--message-format=json-render-diagnostics",
		"--config", fmt.Sprintf("patch.crates-io.%s.path=%q", rustkit.Name, kit)}
	if info, err := os.Stat(debianRegistry); err == nil && info.IsDir() {
		args = append(args, "--offline",
			"--config", `source.crates-io.replace-with="escouade-debian"`,
			"--config", fmt.Sprintf("source.escouade-debian.directory=%q", debianRegistry))
	}
	cmd := exec.CommandContext(ctx, tc.cargo, args...)
	cmd.Dir = filepath.Dir(src)
	cmd.Env = append(os.Environ(), "RUSTC="+tc.rustc)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	tail := &lineTail{max: cargoTailLines, progress: progress}
	cmd.Stderr = tail
	runErr := cmd.Run()
	tail.flush()
	if runErr != nil {
		return fmt.Errorf("cargo build failed (%v):\n%s", runErr, tail.text())
	}
	module, err := cdylibArtifact(stdout.Bytes(), src)
	if err != nil {
		return err
	}
	if err := copyModule(module, filepath.Join(dir, wasm.ModuleFile)); err != nil {
		return err
	}
	say(progress, fmt.Sprintf("built %s from %s", wasm.ModuleFile, module))
	return nil
}

func say(progress func(string), line string) {
	if progress != nil {
		progress(line)
	}
}

// writeRustKit writes the kit's source under the home, where cargo's
// patch finds it, leaving files already as they should be untouched so
// that cargo does not build the kit again.
func writeRustKit(home string) (string, error) {
	dir := filepath.Join(home, "rust-kit", rustkit.Name+"-"+rustkit.Version)
	err := fs.WalkDir(rustkit.Source, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(rustkit.Source, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dir, filepath.FromSlash(path))
		if old, err := os.ReadFile(to); err == nil && bytes.Equal(old, data) {
			return nil
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		return os.WriteFile(to, data, 0o644)
	})
	return dir, err
}

// cdylibArtifact finds, in cargo's JSON messages, the .wasm of the crate
// at src.
func cdylibArtifact(messages []byte, src string) (string, error) {
	want, _ := filepath.Abs(src)
	sc := bufio.NewScanner(bytes.NewReader(messages))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var m struct {
			Reason       string   `json:"reason"`
			ManifestPath string   `json:"manifest_path"`
			Filenames    []string `json:"filenames"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.Reason != "compiler-artifact" {
			continue
		}
		if got, _ := filepath.Abs(m.ManifestPath); got != want {
			continue
		}
		for _, f := range m.Filenames {
			if strings.HasSuffix(f, ".wasm") {
				return f, nil
			}
		}
	}
	return "", fmt.Errorf("%s builds no WebAssembly module: give it [lib] crate-type = [\"cdylib\"] and escouade_plugin::module!(setup) in src/lib.rs", src)
}

// copyModule writes the built module to plugin.wasm through a temporary
// file, so that a host never loads half a module.
func copyModule(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	tmp := to + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, to); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// lineTail passes cargo's stderr on line by line and keeps its last lines
// for the failure, without the Compiling lines that say nothing of it.
type lineTail struct {
	mu       sync.Mutex
	max      int
	progress func(string)
	partial  []byte
	lines    []string
}

func (t *lineTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.partial = append(t.partial, p...)
	for {
		i := bytes.IndexByte(t.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		t.add(string(bytes.TrimRight(t.partial[:i], "\r")))
		t.partial = t.partial[i+1:]
	}
}

func (t *lineTail) add(line string) {
	say(t.progress, line)
	trimmed := strings.TrimSpace(line)
	if strings.HasPrefix(trimmed, "Compiling ") || strings.HasPrefix(trimmed, "Downloaded ") {
		return
	}
	t.lines = append(t.lines, line)
	if len(t.lines) > t.max {
		t.lines = t.lines[1:]
	}
}

func (t *lineTail) flush() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.partial) > 0 {
		t.add(string(t.partial))
		t.partial = nil
	}
}

func (t *lineTail) text() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, "\n")
}
