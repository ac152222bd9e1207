//go:build linux

package hardening

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// handledBench is the scenario of a plugin that handles a refused fetch:
// its call answers a result after the bench refused example.com.
const handledBench = `{"scenarios": [{"name": "count", "call": "count/get", "expect": {"includes": {"words": 3}}}]}`

// handledManifest is a plugin reading a setting and a data file, whose
// permissions.network does not list example.com.
func handledManifest(id string, run map[string]any) []byte {
	m := map[string]any{
		"id": id, "name": "Handled", "version": "1.0.0", "escouade": map[string]any{"api": "1"},
		"run": run, "activation": []string{"onCall"},
		"permissions": map[string]any{"network": []string{"api.github.com"}},
		"contributes": map[string]any{"settings": map[string]any{
			"step": map[string]any{"type": "integer", "default": 1, "label": map[string]any{"en": "Step"}},
		}},
	}
	b, _ := json.MarshalIndent(m, "", "  ")
	return b
}

// benchHandled runs the bench over dir and wants it green, the refusal
// said as handled rather than failed.
func benchHandled(t *testing.T, dir, refused string) {
	t.Helper()
	out, errOut, code := cli(t, "test", dir, "--home", t.TempDir())
	if code != 0 || !strings.Contains(out, " 0 failed") {
		t.Fatalf("exit %d, want the bench green\n%s\nstderr %s", code, out, errOut)
	}
	for _, want := range []string{"so it handled: net/fetch: ", refused, "refused and handled by the plugin (its call then answered a result)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report does not say %q:\n%s", want, out)
		}
	}
}

// docs/CLI.md#the-checks-in-the-order-they-run: a hand-written bundle that
// catches the refusal of a fetch outside permissions.network and answers
// a result passes the bench, 0 failed; the same file run by node as a
// process (which has no net/fetch: -32601) too.
func TestTheBenchPassesAHandWrittenPluginThatHandlesARefusal(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "handled-fetch", "plugin.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	kinds := []struct {
		name    string
		run     map[string]any
		refused string
	}{
		{"bundle", map[string]any{"js": "dist/plugin.mjs"}, "example.com is not in permissions.network"},
		{"node process", map[string]any{"command": []string{"node", "dist/plugin.mjs"}}, "(-32601)"},
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			if k.name == "node process" {
				if _, err := exec.LookPath("node"); err != nil {
					t.Skip("node is not installed")
				}
			}
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "escouade-plugin.json"), handledManifest("dev.escouade.hardening.handled", k.run))
			writeFile(t, filepath.Join(dir, "dist", "plugin.mjs"), src)
			writeFile(t, filepath.Join(dir, "data", "words.txt"), []byte("one\ntwo\nthree\n"))
			writeFile(t, filepath.Join(dir, "escouade-bench.json"), []byte(handledBench))
			benchHandled(t, dir, k.refused)
		})
	}
}

// pythonCount is a process plugin in plain Python on the example's
// connection (examples/python-notes/notes.py): count/get reads a setting
// and a data file, logs, sleeps 50 ms, and handles the refused fetch.
const pythonCount = `import sys, time
from notes import Connection, RPCError

def count(conn, params):
    settings = conn.call("settings/get", {})
    words = conn.call("files/read", {"path": "data/words.txt"})
    conn.log("info", "counting")
    time.sleep(0.05)
    try:
        conn.call("net/fetch", {"url": "https://example.com/"})
        fetched = "fetched"
    except RPCError as error:
        fetched = "refused %d" % error.code
    return {"words": len([w for w in words.split("\n") if w]), "step": settings.get("step"), "fetched": fetched}

conn = Connection(sys.stdin.buffer, sys.stdout.buffer)
conn.handlers["count/get"] = lambda params: count(conn, params)
conn.serve()
`

func TestTheBenchPassesAPythonPluginThatHandlesARefusal(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	notes, err := os.ReadFile(filepath.Join("..", "..", "examples", "python-notes", "notes.py"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "escouade-plugin.json"), handledManifest("dev.escouade.hardening.pycount", map[string]any{"command": []string{"python3", "count.py"}}))
	writeFile(t, filepath.Join(dir, "notes.py"), notes)
	writeFile(t, filepath.Join(dir, "count.py"), []byte(pythonCount))
	writeFile(t, filepath.Join(dir, "data", "words.txt"), []byte("one\ntwo\nthree\n"))
	writeFile(t, filepath.Join(dir, "escouade-bench.json"), []byte(handledBench))
	benchHandled(t, dir, "(-32601)")
}

// rustCount is added to a copy of examples/hello-rust: count/get on the
// Rust kit, handling the refused fetch by its error.
const rustCount = `
async fn count(host: Host, _params: Value) -> Result<Value, Error> {
    let settings = host.settings(None).await?;
    let words = host.read_file(WORDS_FILE).await?.split_whitespace().count();
    host.log(Level::Info, "counting");
    host.sleep(50).await?;
    let fetched = match host.fetch(Request::get("https://example.com/")).await {
        Ok(_) => "fetched".to_string(),
        Err(e) => format!("refused {}", e.code()),
    };
    Ok(serde_json::json!({ "words": words, "greeting": settings.get("greeting"), "fetched": fetched }))
}
`

// A Rust plugin on the kit that handles a refused fetch goes green, built
// by escouade-plugin build as the docs say.
func TestTheBenchPassesARustPluginThatHandlesARefusal(t *testing.T) {
	if _, err := os.Stat("/usr/lib/rustlib/wasm32-wasi"); err != nil {
		t.Skip("the wasm32-wasi target of Debian's Rust is not installed (scripts/setup installs it)")
	}
	dir := copyDir(t, filepath.Join("..", "..", "examples", "hello-rust"))
	for _, built := range []string{"target", "plugin.wasm", "Cargo.lock"} {
		os.RemoveAll(filepath.Join(dir, built))
	}
	lib := filepath.Join(dir, "src", "lib.rs")
	src, err := os.ReadFile(lib)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(src), `p.handle("hello/fetch", fetch);`, `p.handle("hello/fetch", fetch);
    p.handle("count/get", count);`, 1) + rustCount
	writeFile(t, lib, []byte(text))
	writeFile(t, filepath.Join(dir, "escouade-bench.json"), []byte(`{"scenarios": [{"name": "count", "call": "count/get", "expect": {"includes": {"words": 4}}}]}`))
	home := t.TempDir()
	// cargo takes minutes on a loaded machine: its own bound, not waitLong's.
	build := exec.Command(filepath.Join(bins, "escouade-plugin"), "build", dir, "--home", home)
	if cache, err := os.UserCacheDir(); err == nil {
		build.Env = append(os.Environ(), "CARGO_TARGET_DIR="+filepath.Join(cache, "escouade-plugin", "hardening-rust-target"))
	}
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	benchHandled(t, dir, "example.com is not in permissions.network")
}

// tsCount is a TypeScript plugin on the JS SDK: count/get reads a setting
// and a data file, logs, sleeps 50 ms and handles the refused fetch.
const tsCount = `import { Plugin, RpcError } from "@escouade-dev/plugin";

const p = new Plugin();

p.method("count/get", async () => {
  const settings = await p.settings();
  const words = (await p.readFile("data/words.txt")).split("\n").filter((w) => w !== "").length;
  p.log("info", "counting");
  await p.sleep(50);
  let fetched = "fetched";
  try {
    await p.fetch("https://example.com/");
  } catch (e) {
    fetched = e instanceof RpcError ? "refused " + e.code : "failed";
  }
  return { words, step: settings.step ?? null, fetched };
});

p.run();
`

// A TypeScript plugin built with the JS SDK that handles a refused fetch
// goes green. The SDK's build needs its node modules (npm ci in sdk/js).
func TestTheBenchPassesATypeScriptPluginThatHandlesARefusal(t *testing.T) {
	sdk, err := filepath.Abs(filepath.Join("..", "..", "sdk", "js"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(sdk, "node_modules", "esbuild")); err != nil {
		t.Skip("the JS SDK's node modules are not installed: npm ci --prefix sdk/js")
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "escouade-plugin.json"), handledManifest("dev.escouade.hardening.tscount", map[string]any{"js": "dist/plugin.mjs"}))
	writeFile(t, filepath.Join(dir, "src", "plugin.ts"), []byte(tsCount))
	writeFile(t, filepath.Join(dir, "data", "words.txt"), []byte("one\ntwo\nthree\n"))
	writeFile(t, filepath.Join(dir, "escouade-bench.json"), []byte(handledBench))
	if out, err := exec.Command("node", filepath.Join(sdk, "bin", "escouade-plugin-build.mjs"), dir).CombinedOutput(); err != nil {
		t.Fatalf("the SDK's build: %v\n%s", err, out)
	}
	benchHandled(t, dir, "example.com is not in permissions.network")
}
