package callsdoc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Where the page, the schema and the kits are, from this package.
var (
	repoRoot = filepath.Join("..", "..")
	page     = filepath.Join(repoRoot, "docs", "calls.md")
	schema   = filepath.Join(repoRoot, "schemas", "plugin-protocol-1.json")
	sdkJS    = filepath.Join(repoRoot, "sdk", "js")
	kitRust  = filepath.Join(repoRoot, "sdk", "rust")
)

// Debian's toolchain and crates, which build offline: the examples are
// checked for the host target, against the kit's source, with the crates
// Debian packages (no registry is reached), whatever toolchain PATH has.
const (
	debianCargo    = "/usr/bin/cargo"
	debianRustc    = "/usr/bin/rustc"
	debianRegistry = "/usr/share/cargo/registry"
)

// example is one fenced block of the page: ```ts method=M or ```rust method=M.
type example struct {
	lang, method string
	line         int // where the block starts, for messages
	code         string
}

// fence is the opening line of an example.
var fence = regexp.MustCompile("^```(ts|rust) method=(\\S+)\\s*$")

// examples reads every marked block of the page; an unmarked ts or rust
// block is an error, since nothing would compile it.
func examples(t *testing.T) []example {
	t.Helper()
	text, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	var out []example
	var cur *example
	var body strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur != nil && line == "```":
			cur.code = body.String()
			out = append(out, *cur)
			cur = nil
			body.Reset()
		case cur != nil:
			body.WriteString(line + "\n")
		case fence.MatchString(line):
			m := fence.FindStringSubmatch(line)
			cur = &example{lang: m[1], method: m[2], line: n}
		case line == "```ts" || line == "```rust" || line == "```typescript" || line == "```rs":
			t.Errorf("calls.md:%d: a %s block without method=…: mark it (```%s method=<method>) so the test compiles it", n, strings.TrimPrefix(line, "```"), strings.TrimPrefix(line, "```"))
		}
	}
	if cur != nil {
		t.Fatalf("calls.md:%d: the block is not closed", cur.line)
	}
	return out
}

// schemaMethods is the list of x-methods of the protocol schema.
func schemaMethods(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(schema)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Methods map[string]json.RawMessage `json:"x-methods"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	var names []string
	for name := range s.Methods {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

func TestEveryMethodHasAnExampleInBothLanguages(t *testing.T) {
	methods := schemaMethods(t)
	have := map[string]bool{}
	for _, ex := range examples(t) {
		if !slices.Contains(methods, ex.method) {
			t.Errorf("calls.md:%d: method=%s is not a method of the schema", ex.line, ex.method)
		}
		have[ex.lang+" "+ex.method] = true
	}
	for _, m := range methods {
		for _, lang := range []string{"ts", "rust"} {
			if !have[lang+" "+m] {
				t.Errorf("calls.md has no %s example of %s (add ```%s method=%s)", lang, m, lang, m)
			}
		}
	}
}

// tsconfig type-checks the examples against the SDK's source, with the
// SDK's own strictness.
const tsconfig = `{
  "compilerOptions": {
    "target": "ES2022",
    "module": "ESNext",
    "moduleResolution": "Bundler",
    "lib": ["ES2022"],
    "strict": true,
    "noEmit": true,
    "skipLibCheck": true,
    "types": ["node"],
    "typeRoots": [%q],
    "paths": { "@escouade-dev/plugin": [%q] }
  },
  "include": ["*.ts"]
}
`

func TestTypeScriptExamplesTypeCheck(t *testing.T) {
	tsc, err := filepath.Abs(filepath.Join(sdkJS, "node_modules", ".bin", "tsc"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tsc); err != nil {
		t.Skipf("TypeScript is not installed in sdk/js (%v): run npm ci --prefix sdk/js", err)
	}
	sdk, err := filepath.Abs(sdkJS)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	config := fmt.Sprintf(tsconfig, filepath.Join(sdk, "node_modules", "@types"), filepath.Join(sdk, "src", "index.ts"))
	write(t, filepath.Join(dir, "tsconfig.json"), config)
	files := map[string]example{}
	for i, ex := range examples(t) {
		if ex.lang != "ts" {
			continue
		}
		name := fmt.Sprintf("example%02d.ts", i)
		files[name] = ex
		// Each file is a module of its own, so examples may reuse names.
		write(t, filepath.Join(dir, name), ex.code+"\nexport {};\n")
	}
	out, err := run(dir, tsc, "-p", ".")
	if err != nil {
		t.Fatalf("the TypeScript examples of calls.md do not type-check (%v):\n%s", err, locate(out, files))
	}
}

// cargoToml is the crate of the Rust examples: one module per example.
const cargoToml = `[package]
name = "calls-examples"
version = "0.0.0"
edition = "2021"
publish = false

[lib]
path = "src/lib.rs"

[dependencies]
escouade-plugin = { path = %q }
serde = { version = "1", features = ["derive"] }
serde_json = "1"
`

const cargoConfig = `[source.crates-io]
replace-with = "debian"

[source.debian]
directory = %q

[net]
offline = true
`

func TestRustExamplesCompile(t *testing.T) {
	for _, need := range []string{debianCargo, debianRustc, debianRegistry} {
		if _, err := os.Stat(need); err != nil {
			t.Skipf("the Rust examples need Debian's toolchain and crates (%v): apt-get install rustc cargo librust-serde-json-dev librust-serde-derive-dev", err)
		}
	}
	kit, err := filepath.Abs(kitRust)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, "Cargo.toml"), fmt.Sprintf(cargoToml, kit))
	write(t, filepath.Join(dir, ".cargo", "config.toml"), fmt.Sprintf(cargoConfig, debianRegistry))
	lib, blocks := rustCrate(examples(t))
	write(t, filepath.Join(dir, "src", "lib.rs"), lib)
	cmd := exec.Command(debianCargo, "check", "--offline", "--quiet", "--message-format", "short")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "RUSTC="+debianRustc, "CARGO_TARGET_DIR="+targetDir(t, dir), "CARGO_TERM_COLOR=never")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the Rust examples of calls.md do not compile (%v):\n%s", err, blocks.locate(out))
	}
}

// rustCrate is the lib.rs of the examples, one module each, and where
// each example's code begins in it.
func rustCrate(all []example) (string, rustBlocks) {
	var lib strings.Builder
	lib.WriteString("// The examples of calls.md, one module each.\n#![allow(dead_code, unused_imports, unused_variables)]\n")
	line := 3 // the next line to write
	var blocks rustBlocks
	for i, ex := range all {
		if ex.lang != "rust" {
			continue
		}
		fmt.Fprintf(&lib, "\n// calls.md:%d %s\nmod example%02d {\n", ex.line, ex.method, i)
		line += 3
		blocks = append(blocks, rustBlock{ex, line})
		lib.WriteString(ex.code + "}\n")
		line += strings.Count(ex.code, "\n") + 1
	}
	return lib.String(), blocks
}

type rustBlock struct {
	example
	first int // the line of lib.rs holding the example's first line
}

type rustBlocks []rustBlock

var rustPlace = regexp.MustCompile(`^src/lib\.rs:(\d+):(\d+): (.*)$`)

// locate turns each place of cargo's short messages in src/lib.rs into
// the line of calls.md and the method of its example.
func (bs rustBlocks) locate(out []byte) string {
	var b strings.Builder
	for _, line := range strings.Split(string(out), "\n") {
		if m := rustPlace.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[1]) // digits
			for i := len(bs) - 1; i >= 0; i-- {
				if n >= bs[i].first {
					line = fmt.Sprintf("calls.md:%d (rust %s): column %s: %s", bs[i].line+1+n-bs[i].first, bs[i].method, m[2], m[3])
					break
				}
			}
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// targetDir is where cargo keeps what it compiled: under the user's cache
// when there is one, so that serde and the kit are compiled once and not
// on every run (cargo locks the folder against a concurrent run); in the
// test's folder otherwise.
func targetDir(t *testing.T, dir string) string {
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Logf("no cache folder (%v): compiling everything in the test's folder", err)
		return filepath.Join(dir, "target")
	}
	return filepath.Join(cache, "escouade-plugin", "calls-examples-target")
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func run(dir, prog string, args ...string) ([]byte, error) {
	cmd := exec.Command(prog, args...)
	cmd.Dir = dir
	return cmd.CombinedOutput()
}

// locate prefixes each line of tsc's output naming exampleNN.ts with the
// method and the line of calls.md its block starts at.
func locate(out []byte, files map[string]example) string {
	var b strings.Builder
	for _, line := range strings.Split(string(out), "\n") {
		for name, ex := range files {
			if strings.HasPrefix(line, name) {
				line = fmt.Sprintf("calls.md, the block at line %d (%s %s): %s", ex.line, ex.lang, ex.method, line)
				break
			}
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}
