package wasm

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The Rust kit's echo module of the report, built with Debian's toolchain
// offline as `escouade-plugin build` builds a Cargo.toml.
const (
	rustCargo    = "/usr/bin/cargo"
	rustRustc    = "/usr/bin/rustc"
	rustRegistry = "/usr/share/cargo/registry"
)

const rustEchoCargo = `[package]
name = "echo"
version = "0.0.0"
edition = "2021"
publish = false

[lib]
crate-type = ["cdylib"]

[dependencies]
escouade-plugin = { path = %q }
serde_json = "1"

[profile.release]
opt-level = "s"
lto = true
strip = true
`

const rustEchoConfig = `[source.crates-io]
replace-with = "debian"

[source.debian]
directory = %q

[net]
offline = true
`

// rustEchoLib answers t/echo with its params, as kit/testdata/turns does
// for the Go kit.
const rustEchoLib = `use escouade_plugin::{Host, Plugin, Value};

fn setup(p: &mut Plugin) {
    p.handle("t/echo", |_host: Host, params: Value| async move { Ok(params) });
}

escouade_plugin::module!(setup);
`

// rustRows adds the Rust kit's echo module beside the Go kit's rows of
// moduleRows, measured in the same rounds. Without cargo they are left
// out, and the report says so.
func rustRows(t *testing.T, r *report, tr *Transport, sec string) {
	module, why := rustEchoModule(t)
	if module == nil {
		t.Logf("the Rust kit's rows left out: %s", why)
		return
	}
	prog := launch(t, tr, specOf(pluginDir(t, module, nil)))
	r.bench(sec, "Rust kit echo, module through the transport", func(b *testing.B) { kitTrips(b, prog.Stdin(), prog.Stdout()) })
	r.ratio("Rust kit", "Rust kit echo, module through the transport", "kit echo, module through the transport", 0)
	r.ratio("Rust kit", "Rust kit echo, module through the transport", "kit echo, process over pipes", 0)
	t.Logf("the Rust kit echo module: %d KB", len(module)>>10)
}

// rustEchoModule builds the echo crate for wasm32-wasi, or says why it
// cannot.
func rustEchoModule(t *testing.T) ([]byte, string) {
	for _, need := range []string{rustCargo, rustRustc, rustRegistry} {
		if _, err := os.Stat(need); err != nil {
			return nil, fmt.Sprintf("%v (apt-get install rustc cargo libstd-rust-dev-wasm32 librust-serde-json-dev)", err)
		}
	}
	kit, err := filepath.Abs(filepath.Join("..", "..", "sdk", "rust"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]string{
		"Cargo.toml":         fmt.Sprintf(rustEchoCargo, kit),
		".cargo/config.toml": fmt.Sprintf(rustEchoConfig, rustRegistry),
		"src/lib.rs":         rustEchoLib,
	}
	for name, text := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(rustCargo, "build", "--release", "--offline", "--quiet", "--target", "wasm32-wasi")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "RUSTC="+rustRustc)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Sprintf("cargo build: %v\n%s", err, out)
	}
	module, err := os.ReadFile(filepath.Join(dir, "target", "wasm32-wasi", "release", "echo.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	return module, ""
}
