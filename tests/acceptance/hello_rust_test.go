package acceptance

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Debian's toolchain, which `escouade-plugin build` falls back to when the
// cargo of PATH has no wasm32-wasi standard library.
const (
	debianCargo = "/usr/bin/cargo"
	debianRustc = "/usr/bin/rustc"
)

// needRustForWasm skips the test unless cargo and the wasm32-wasi target
// are installed, the two things `build` needs for a Cargo.toml.
func needRustForWasm(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(debianCargo); err != nil {
		t.Skipf("%s is missing, so examples/hello-rust cannot be built: apt-get install rustc cargo libstd-rust-dev-wasm32", debianCargo)
	}
	out, err := exec.Command(debianRustc, "--print", "sysroot").Output()
	if err != nil {
		t.Skipf("%s --print sysroot: %v: apt-get install rustc", debianRustc, err)
	}
	lib := filepath.Join(strings.TrimSpace(string(out)), "lib", "rustlib", "wasm32-wasi", "lib")
	if _, err := os.Stat(lib); err != nil {
		t.Skipf("the wasm32-wasi target is not installed (%s): apt-get install libstd-rust-dev-wasm32", lib)
	}
}

// copyPlugin copies a plugin folder of the repository, without its build
// outputs, so that building it writes nothing into the checkout.
func copyPlugin(t *testing.T, from string) string {
	t.Helper()
	to := t.TempDir()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		switch rel {
		case "target", "plugin.wasm", "Cargo.lock":
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return to
}

// cli runs the command to its end, with env added to the environment, and
// returns its exit code and output.
func cli(t *testing.T, env []string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(cliPath, args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if exit, ok := err.(*exec.ExitError); ok {
		return exit.ExitCode(), string(out)
	}
	if err != nil {
		t.Fatalf("escouade-plugin %s: %v", strings.Join(args, " "), err)
	}
	return 0, string(out)
}

// TestHelloRustBuildsPassesTheBenchAndAnswers is what a Rust author does
// with the example: build it from its Cargo.toml, run the bench on it, and
// call it through run.
func TestHelloRustBuildsPassesTheBenchAndAnswers(t *testing.T) {
	needRustForWasm(t)
	// Not parallel: cargo's build takes both cores for a minute or more,
	// and the parallel tests time module turns against their 2 s limit;
	// a test that is not parallel runs before them, alone.
	dir := copyPlugin(t, filepath.Join(repoRoot, "examples", "hello-rust"))
	home := t.TempDir()

	// cargo keeps what it compiled (serde above all) under the user's
	// cache, so that a second run does not compile it again; the plugin's
	// own crate and the kit the CLI writes under the home are built anew.
	var cargoCache []string
	if cache, err := os.UserCacheDir(); err == nil {
		cargoCache = []string{"CARGO_TARGET_DIR=" + filepath.Join(cache, "escouade-plugin", "hello-rust-target")}
	}
	code, out := cli(t, cargoCache, "build", dir, "--home", home)
	if code != 0 {
		t.Fatalf("build exited %d:\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "plugin.wasm")); err != nil {
		t.Fatalf("build made no plugin.wasm beside the manifest (%v):\n%s", err, out)
	}
	if !strings.Contains(out, "dev.escouade.example.hello-rust: compiled into the cache") {
		t.Errorf("build did not say the module is compiled:\n%s", out)
	}

	code, out = cli(t, nil, "test", dir, "--home", home, "--json")
	var bench struct {
		Checks []struct {
			Check  string `json:"check"`
			Title  string `json:"title"`
			Status string `json:"status"`
		} `json:"checks"`
		Passed int `json:"passed"`
		Failed int `json:"failed"`
	}
	if err := json.Unmarshal([]byte(out), &bench); err != nil {
		t.Fatalf("test --json: %v:\n%s", err, out)
	}
	notPassed := []string{}
	for _, c := range bench.Checks {
		if c.Status != "pass" {
			notPassed = append(notPassed, c.Check+" "+c.Status)
		}
	}
	if code != 0 || bench.Failed != 0 || len(notPassed) != 0 || bench.Passed == 0 {
		t.Fatalf("the bench on hello-rust: exit %d, rows not passed %v:\n%s", code, notPassed, out)
	}
	for _, scenario := range []string{"greet", "greet without a name", "echo"} {
		if !strings.Contains(out, scenario) {
			t.Errorf("the bench ran no scenario %q of escouade-bench.json:\n%s", scenario, out)
		}
	}

	c := start(t, plugin{dir: dir, id: "dev.escouade.example.hello-rust"}, home, "--secret", "token=s3cret")
	var greeted map[string]any
	c.result("r1", "hello/greet", map[string]any{"name": "Ada", "delayMs": 20}, &greeted)
	want := map[string]any{"text": "Hello, Ada!", "emoji": "👋", "token": true, "waited": float64(20), "words": float64(4)}
	if diff := cmp.Diff(want, greeted); diff != "" {
		t.Errorf("hello/greet through run (-want +got):\n%s", diff)
	}
	var echoed any
	c.result("r2", "hello/echo", map[string]any{"list": []any{1, "é"}}, &echoed)
	if diff := cmp.Diff(map[string]any{"list": []any{float64(1), "é"}}, echoed); diff != "" {
		t.Errorf("hello/echo through run (-want +got):\n%s", diff)
	}
	if a := c.call("r3", "hello/greet", map[string]any{}); a.Err == nil || a.Err.Code != -32602 {
		t.Errorf("hello/greet without a name: want -32602, got %s", a.raw)
	}
}
