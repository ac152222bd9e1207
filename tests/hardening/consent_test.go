//go:build linux

package hardening

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const handJS = "dev.escouade.example.hand-js"

// copyDir copies the example folder src to a new temporary folder.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, info.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// editRun rewrites the run of the manifest in dir, id and version kept.
func editRun(t *testing.T, dir string, run any) {
	t.Helper()
	path := filepath.Join(dir, "escouade-plugin.json")
	var m map[string]any
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m["run"] = run
	b, _ = json.MarshalIndent(m, "", "  ")
	writeFile(t, path, b)
}

// view is a running escouade-plugin serve: its address and secret.
type view struct {
	base, secret string
	cmd          *exec.Cmd
}

// serveHome starts escouade-plugin serve on a free loopback port and
// stops it at the end of the test.
func serveHome(t *testing.T, home string) *view {
	t.Helper()
	return serveHomeEnv(t, home, nil)
}

// serveHomeEnv is serveHome with the view's environment (the test's when
// nil).
func serveHomeEnv(t *testing.T, home string, env []string) *view {
	t.Helper()
	cmd := exec.Command(filepath.Join(bins, "escouade-plugin"), "serve", "--home", home, "--keychain", "memory", "--addr", "127.0.0.1:0")
	cmd.Env = env
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	first, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("serve printed no address: %v", err)
	}
	go io.Copy(io.Discard, out)
	u, err := url.Parse(strings.TrimSpace(strings.TrimPrefix(first, "The Plugins view: ")))
	if err != nil {
		t.Fatalf("serve printed %q: %v", first, err)
	}
	return &view{base: "http://" + u.Host, secret: u.Query().Get("secret"), cmd: cmd}
}

// do sends a request to the view as its page does, the secret in the
// header; it returns the status and the body.
func (v *view) do(t *testing.T, method, path string, form url.Values) (int, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, v.base+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	return v.send(t, req)
}

// send makes req with the secret in its header, as the page's script does.
func (v *view) send(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	req.Header.Set("X-Escouade-Secret", v.secret)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// The attack of issue 17: a run.js plugin installed (the window said
// isolated), then its manifest edited in place to run a shell, same id and
// version. No start through the registry runs it: the CLI's restart and
// enable refuse it, list marks it, and the view's Restart stops it with a
// reason that says how to review it; once reviewed in the view's window,
// it is what the user said yes to.
func TestConsentEditedManifestDoesNotRun(t *testing.T) {
	dir := copyDir(t, "../../examples/hand-js")
	home := t.TempDir()
	marker := filepath.Join(t.TempDir(), "marker")
	if out, errText, code := cli(t, "install", dir, "--home", home); code != 0 || !strings.Contains(out, "isolated") {
		t.Fatalf("install: exit %d\n%s%s", code, out, errText)
	}
	editRun(t, dir, map[string]any{"command": []string{"sh", "-c", "id > " + marker}})

	for _, op := range []string{"restart", "enable"} {
		_, errText, code := cli(t, op, handJS, "--home", home)
		if code == 0 || !strings.Contains(errText, "the folder changed since it was installed") || !strings.Contains(errText, "escouade-plugin install "+dir) {
			t.Errorf("%s: exit %d, stderr %q; want a refusal saying the folder changed and how to review it", op, code, errText)
		}
	}
	if out, _, _ := cli(t, "list", "--home", home); !strings.Contains(out, "needs review") {
		t.Errorf("list does not mark it:\n%s", out)
	}

	v := serveHome(t, home)
	status, body := v.do(t, http.MethodPost, "/plugins/"+handJS+"/restart", url.Values{})
	if status != http.StatusOK {
		t.Fatalf("Restart: %d %s", status, body)
	}
	page := v.waitPage(t, "/plugins/"+handJS, "Stopped")
	for _, want := range []string{"Its folder changed since you installed it", "not started until you review what changed", "Review", "/install?dir="} {
		if !strings.Contains(page, want) {
			t.Errorf("the plugin's page lacks %q", want)
		}
	}
	if _, list := v.do(t, http.MethodGet, "/", nil); !strings.Contains(list, `class="review"`) {
		t.Errorf("the list offers no review")
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the edited command ran")
	}
	if j := journalFiles(t, home, handJS); !regexp.MustCompile(`stop not started: the folder changed since it was installed \(it ran a JS bundle inside Escouade and now runs a program on your computer\)`).MatchString(j) {
		t.Errorf("journal lacks the stop and its reason:\n%s", tail(j, 2000))
	}

	// The review is the update window: it shows what runs now and what
	// ran before; saying yes records it, and the user's choice runs.
	_, window := v.do(t, http.MethodGet, "/install?dir="+url.QueryEscape(dir), nil)
	for _, want := range []string{"Runs a program on your computer", "sh -c id &gt; " + marker, "Before: Runs inside Escouade, isolated", "changed since you installed it"} {
		if !strings.Contains(window, want) {
			t.Errorf("the review window lacks %q", want)
		}
	}
	fp := regexp.MustCompile(`name="fingerprint" value="([0-9a-f]{64})"`).FindStringSubmatch(window)
	if fp == nil {
		t.Fatal("the window carries no fingerprint")
	}
	if status, body := v.do(t, http.MethodPost, "/install", url.Values{"dir": {dir}, "fingerprint": {fp[1]}}); status != http.StatusOK {
		t.Fatalf("review: %d %s", status, body)
	}
	if _, list := v.do(t, http.MethodGet, "/", nil); strings.Contains(list, `class="review"`) {
		t.Errorf("the list still offers a review after it")
	}
	v.do(t, http.MethodPost, "/plugins/"+handJS+"/restart", url.Values{})
	v.waitPage(t, "/plugins/"+handJS, "stopped after 4 crashes") // sh speaks no protocol: it exits at once
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("after the review the program the user said yes to did not run: %v", err)
	}
}

// windowFingerprint reads the install window of dir and returns the
// fingerprint it carries.
func (v *view) windowFingerprint(t *testing.T, dir string) string {
	t.Helper()
	_, window := v.do(t, http.MethodGet, "/install?dir="+url.QueryEscape(dir), nil)
	fp := regexp.MustCompile(`name="fingerprint" value="([0-9a-f]{64})"`).FindStringSubmatch(window)
	if fp == nil {
		t.Fatal("the window carries no fingerprint")
	}
	return fp[1]
}

// A window read before the folder changed cannot install what it did
// not show.
func TestConsentWindowBindsItsFingerprint(t *testing.T) {
	dir := copyDir(t, "../../examples/hand-js")
	home := t.TempDir()
	v := serveHome(t, home)
	fp := v.windowFingerprint(t, dir)
	editRun(t, dir, map[string]any{"command": []string{"sh", "-c", "true"}})
	status, body := v.do(t, http.MethodPost, "/install", url.Values{"dir": {dir}, "fingerprint": {fp}})
	if status != http.StatusConflict || !strings.Contains(body, "its manifest or a file it runs changed while the window was open") {
		t.Errorf("install of a changed folder: %d %s", status, body)
	}
	if out, _, _ := cli(t, "list", "--home", home); strings.Contains(out, handJS) {
		t.Errorf("it was installed:\n%s", out)
	}
}

// waitPage reads path until it holds text (the plugin's state changes on
// its own goroutine); the live stream is what the page itself waits on.
func (v *view) waitPage(t *testing.T, path, text string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLong(t)) // a bound for a hang, not a measure
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, v.base+"/events", nil)
	req.Header.Set("X-Escouade-Secret", v.secret)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	events := bufio.NewScanner(res.Body)
	for {
		if _, page := v.do(t, http.MethodGet, path, nil); strings.Contains(page, text) {
			return page
		}
		if !events.Scan() {
			t.Fatalf("the view's stream ended before %s held %q", path, text)
		}
	}
}

// A registry written before consents were recorded: its plugins need one
// review, after which they start as before.
func TestConsentOldRegistryNeedsReview(t *testing.T) {
	dir := copyDir(t, "../../examples/hand-js")
	home := t.TempDir()
	if _, errText, code := cli(t, "install", dir, "--home", home); code != 0 {
		t.Fatalf("install: exit %d %s", code, errText)
	}
	path := filepath.Join(home, "plugins.json")
	var entries []map[string]any
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &entries); err != nil || len(entries) != 1 || entries[0]["consent"] == nil {
		t.Fatalf("plugins.json holds no consent: %s (%v)", b, err)
	}
	delete(entries[0], "consent")
	b, _ = json.Marshal(entries)
	writeFile(t, path, b)
	_, errText, code := cli(t, "restart", handJS, "--home", home)
	if code != 1 || !strings.Contains(errText, "installed before Escouade recorded what you consented to") {
		t.Errorf("restart of an old entry: exit %d %q", code, errText)
	}
	cli(t, "install", dir, "--home", home)
	if out, errText, code := cli(t, "restart", handJS, "--home", home); code != 0 {
		t.Errorf("restart after the review: exit %d %s%s", code, out, errText)
	}
}
