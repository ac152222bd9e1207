//go:build linux

package hardening

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The bench serves a bundle's net/fetch behind the host's egress guard:
// a URL of this machine (even listed, as localhost is here), the local
// network, the cloud's metadata address, another host, a malformed name
// (an empty label, two trailing dots), plain http or
// another scheme is refused -32003, even when
// escouade-bench.json scripts an answer for it; a scripted answer is given
// only to a URL the manifest's permissions.network lets through.
func TestTheBenchKeepsTheEgressGuardForScriptedAnswers(t *testing.T) {
	dir := helloJSCopy(t)
	// localhost is listed: the guard still refuses the machine itself.
	manifestPath := filepath.Join(dir, "escouade-plugin.json")
	var m map[string]any
	data, err := os.ReadFile(manifestPath)
	if err != nil || json.Unmarshal(data, &m) != nil {
		t.Fatalf("read the manifest: %v", err)
	}
	m["permissions"].(map[string]any)["network"] = []string{"api.github.com", "localhost"}
	data, _ = json.Marshal(m)
	writeFile(t, manifestPath, data)
	forbidden := []string{
		"https://localhost:8443/",
		"http://127.0.0.1:1/",
		"https://localhost/",
		"https://169.254.169.254/latest/meta-data/",
		"https://[::1]/",
		"https://10.0.0.1/",
		"https://api.github.com.evil.example/",
		"https://api.github.com../", // a malformed name is a name not listed
		"https://.api.github.com/",
		"https://evil.example/",
		"http://api.github.com/",
		"file:///etc/passwd",
	}
	fetch := map[string]any{"https://api.github.com/repos/a/b": map[string]any{"body": "allowed"}}
	scenarios := []map[string]any{{
		"name": "allowed", "call": "hello/fetch", "params": map[string]string{"url": "https://api.github.com/repos/a/b"},
		"expect": map[string]any{"includes": map[string]any{"status": 200, "body": "allowed"}},
	}}
	for i, u := range forbidden {
		fetch[u] = map[string]any{"body": "leaked"}
		scenarios = append(scenarios, map[string]any{
			"name": "forbidden " + string(rune('a'+i)), "call": "hello/fetch", "params": map[string]string{"url": u},
			"expect": map[string]any{"error": map[string]any{"code": -32003}},
		})
	}
	bench, _ := json.Marshal(map[string]any{"fetch": fetch, "scenarios": scenarios})
	writeFile(t, filepath.Join(dir, "escouade-bench.json"), bench)

	out, errOut, code := cli(t, "test", dir, "--home", t.TempDir())
	if code != 0 || !strings.Contains(out, " 0 failed") {
		t.Fatalf("exit %d, want every scripted forbidden URL refused -32003:\n%s\n%s", code, out, errOut)
	}
	if strings.Contains(out, "leaked") {
		t.Errorf("a scripted answer for a forbidden URL reached the plugin:\n%s", out)
	}
}

// helloJSCopy copies the SDK example, whose bundle is committed, to a
// temp folder.
func helloJSCopy(t *testing.T) string {
	t.Helper()
	src := filepath.Join("..", "..", "examples", "hello-js")
	dir := t.TempDir()
	for _, name := range []string{"escouade-plugin.json", "greetings.json", filepath.Join("dist", "plugin.mjs")} {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, name), data)
	}
	return dir
}
