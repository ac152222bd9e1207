//go:build linux

package hardening

import (
	"path/filepath"
	"strings"
	"testing"
)

// benchedHelloJS copies hello-js to a temp folder with bench as its
// escouade-bench.json.
func benchedHelloJS(t *testing.T, bench string) string {
	t.Helper()
	dir := helloJSCopy(t)
	writeFile(t, filepath.Join(dir, "escouade-bench.json"), []byte(bench))
	return dir
}

// A bundle sleeping on p.sleep and fetching through net/fetch passes the
// bench: it is served timer/* and net/* as the host serves it, a URL the
// bench file answers gets that answer, a URL of a host the manifest does
// not list is refused by the egress guard with its code.
func TestTheBenchServesABundleTimersAndTheNetwork(t *testing.T) {
	dir := benchedHelloJS(t, `{
  "fetch": {"https://api.github.com/repos/a/b": {"headers": {"Content-Type": "application/json"}, "body": "{}"}},
  "scenarios": [
    {"name": "sleep", "call": "hello/greet", "params": {"name": "Ada", "delayMs": 20}, "expect": {"includes": {"waited": 20}}},
    {"name": "fetch given", "call": "hello/fetch", "params": {"url": "https://api.github.com/repos/a/b"}, "expect": {"includes": {"status": 200, "type": "application/json"}}},
    {"name": "fetch refused", "call": "hello/fetch", "params": {"url": "https://example.org/"}, "expect": {"error": {"code": -32003}}}
  ]
}`)
	out, errOut, code := cli(t, "test", dir, "--home", t.TempDir())
	if code != 0 || !strings.Contains(out, " 0 failed") {
		t.Fatalf("exit %d\n%s\nstderr %s", code, out, errOut)
	}
	if !strings.Contains(out, "timer/set ×1") || !strings.Contains(out, "net/fetch ×2") {
		t.Errorf("the host-requests row does not count timer/set and net/fetch:\n%s", out)
	}
}

// A refusal no scenario expects fails one row, the scenario's, whose fix
// names the permission that exists for it; host-requests does not repeat it.
func TestTheBenchNamesTheNetworkPermissionOfARefusedFetch(t *testing.T) {
	dir := benchedHelloJS(t, `{"scenarios": [{"name": "fetch", "call": "hello/fetch", "params": {"url": "https://example.org/"}}]}`)
	out, _, code := cli(t, "test", dir, "--home", t.TempDir())
	if code != 1 || !strings.Contains(out, " 1 failed") || !strings.Contains(out, "PASS  host-requests") {
		t.Fatalf("exit %d, want the scenario failed alone:\n%s", code, out)
	}
	for _, want := range []string{
		"example.org is not in permissions.network",
		`add the host to "permissions": {"network": […]}`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "or add the permission to the manifest") {
		t.Errorf("the fix names no permission:\n%s", out)
	}
}
