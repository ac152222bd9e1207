//go:build linux

package hardening

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// maxRSSKB bounds the command's peak memory against a hostile file: the
// CLI itself uses a few tens of MB, the attacks it must withstand took
// 5.7 GB. The bound is generous so a loaded machine cannot fail it; what
// it checks is that no file is read whole.
const maxRSSKB = 300 << 10

// attack is one way to plant a file the host must not read: what it makes
// at a path, and what the refusal says of the file.
type attack struct {
	name string
	make func(t *testing.T, path string)
	says func(file string, limit string) string
}

var attacks = []attack{
	{"a named pipe", func(t *testing.T, path string) {
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Fatal(err)
		}
	}, func(file, _ string) string { return file + "is a named pipe; the host reads only regular files" }},
	{"a link to /dev/zero", func(t *testing.T, path string) {
		if err := os.Symlink("/dev/zero", path); err != nil {
			t.Fatal(err)
		}
	}, func(file, _ string) string { return file + "is a device; the host reads only regular files" }},
	{"a sparse 1 GiB file", func(t *testing.T, path string) {
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := f.Truncate(1 << 30); err != nil {
			t.Fatal(err)
		}
	}, func(file, limit string) string { return file + "is 1.0 GiB; the limit is " + limit }},
}

// target is a file of a plugin folder that the host reads.
type target struct {
	file     string            // replaced by the attack
	manifest map[string]any    // the plugin's run
	others   map[string]string // other files of the folder
	named    string            // how the refusal names the file
	limit    string            // the file's limit, as the refusal says it
}

var targets = []target{
	{"escouade-plugin.json", map[string]any{"command": []string{"true"}}, nil, "", "1 MiB"},
	{"plugin.wasm", map[string]any{"wasm": "main.go"}, nil, "plugin.wasm ", "64 MiB"},
	{"version.json", map[string]any{"wasm": "main.go"}, map[string]string{"plugin.wasm": "\x00asm\x01\x00\x00\x00"}, "version.json ", "64 KiB"},
	{"dist/plugin.mjs", map[string]any{"js": "dist/plugin.mjs"}, nil, "dist/plugin.mjs ", "16 MiB"},
}

// Every file the host reads from a plugin folder, planted as a named pipe,
// a link to a device or a huge sparse file: install, build, run and test
// each return at once with the sentence saying what the file is, and
// never read it whole. A hang fails by the wait of attempt.
func TestHostileFilesOfAPluginFolder(t *testing.T) {
	for _, tg := range targets {
		for _, a := range attacks {
			t.Run(tg.file+" as "+a.name, func(t *testing.T) {
				dir := hostileFolder(t, tg, a)
				want := a.says(tg.named, tg.limit)
				for _, args := range [][]string{{"install"}, {"build"}, {"run"}, {"test"}} {
					args := append(args, dir, "--home", t.TempDir())
					out, code, rss := attempt(t, `{"op":"call","id":"c1","method":"x/y"}`+"\n", args...)
					if !strings.Contains(out, want) {
						t.Errorf("%s: exit %d, output %q; want it to say %q", args[0], code, tail(out, 400), want)
					}
					if args[0] != "run" && code == 0 {
						t.Errorf("%s: exit 0, want a refusal", args[0])
					}
					if rss > maxRSSKB {
						t.Errorf("%s: peak memory %d MB, past %d MB", args[0], rss>>10, maxRSSKB>>10)
					}
				}
			})
		}
	}
}

// hostileFolder writes a plugin folder whose target file is the attack.
func hostileFolder(t *testing.T, tg target, a attack) string {
	t.Helper()
	p := plugin{id: "dev.escouade.hardening.reads", manifest: map[string]any{"name": "reads", "run": tg.manifest}, files: tg.others}
	dir := p.write(t)
	path := filepath.Join(dir, filepath.FromSlash(tg.file))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	a.make(t, path)
	return dir
}

// attempt runs escouade-plugin with args and stdin, and returns its
// output (stdout and stderr together), exit code and peak memory in KB.
func attempt(t *testing.T, stdin string, args ...string) (string, int, int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLong(t))
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bins, "escouade-plugin"), args...)
	var out bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(stdin), &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("escouade-plugin %v did not return within %v: %s", args, waitLong(t), tail(out.String(), 1500))
	}
	if err != nil && cmd.ProcessState == nil {
		t.Fatalf("escouade-plugin %v: %v", args, err)
	}
	return out.String(), cmd.ProcessState.ExitCode(), endedPeakKB(t, cmd)
}

// endedPeakKB is the peak resident memory of an ended command, in KB
// (commandPeak: 0 when no more than this test binary's own).
func endedPeakKB(t *testing.T, cmd *exec.Cmd) int64 {
	return commandPeak(t, cmd) >> 10
}

// An installed plugin whose manifest became a named pipe does not hang
// the view: the list page answers, showing the plugin as one that cannot
// load, with the sentence.
func TestViewListsAPluginWhoseManifestIsANamedPipe(t *testing.T) {
	home := t.TempDir()
	dir := plugin{id: "dev.escouade.hardening.pipe", manifest: map[string]any{"name": "pipe", "run": map[string]any{"command": []string{"true"}}}}.write(t)
	if out, code, _ := attempt(t, "", "install", dir, "--home", home); code != 0 {
		t.Fatalf("install: exit %d: %s", code, out)
	}
	manifest := filepath.Join(dir, "escouade-plugin.json")
	os.Remove(manifest)
	attacks[0].make(t, manifest)

	v := startView(t, home)
	status, page := v.get(t, "/")
	want := manifest + ": is a named pipe; the host reads only regular files"
	if status != http.StatusOK || !strings.Contains(page, "Cannot load") || !strings.Contains(page, want) {
		t.Errorf("list page: %d, want the plugin shown as Cannot load: %q; page:\n%s", status, want, tail(page, 3000))
	}
	v.stop(t)
}

// The view's install window and its Install refuse a hostile manifest,
// module or bundle with the sentence, at once, without reading it whole.
func TestViewInstallOfHostileFiles(t *testing.T) {
	v := startView(t, t.TempDir())
	for _, tg := range targets {
		for _, a := range attacks {
			dir := hostileFolder(t, tg, a)
			want := a.says(tg.named, tg.limit)
			// The window fingerprints what it shows (the manifest and the
			// program), so each of those hostile files is refused there
			// already; version.json is read by the Install that compiles.
			status, page := v.get(t, "/install?dir="+url.QueryEscape(dir))
			if tg.file != "version.json" && (status != http.StatusUnprocessableEntity || !strings.Contains(page, want)) ||
				tg.file == "version.json" && status != http.StatusOK {
				t.Errorf("%s as %s: the install window: %d: %s", tg.file, a.name, status, tail(page, 400))
			}
			status, answer := v.post(t, "/install", url.Values{"dir": {dir}})
			if status != http.StatusUnprocessableEntity || !strings.Contains(answer, want) {
				t.Errorf("%s as %s: Install: %d %s; want 422 saying %q", tg.file, a.name, status, tail(answer, 400), want)
			}
		}
	}
	v.stop(t)
}

// readsView is a running escouade-plugin serve.
type readsView struct {
	cmd    *exec.Cmd
	base   string // http://127.0.0.1:port
	secret string
	client *http.Client
	ended  bool
}

// startView starts serve on a free port of loopback and waits for the
// address it prints.
func startView(t *testing.T, home string) *readsView {
	t.Helper()
	v := &readsView{cmd: exec.Command(filepath.Join(bins, "escouade-plugin"), "serve", "--addr", "127.0.0.1:0", "--home", home)}
	stdout, err := v.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	v.cmd.Stderr = os.Stderr
	if err := v.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !v.ended {
			v.cmd.Process.Kill()
			v.cmd.Wait()
		}
	})
	address := viewAddress(t, stdout)
	go io.Copy(io.Discard, stdout)
	parsed, err := url.Parse(address)
	if err != nil {
		t.Fatal(err)
	}
	v.base, v.secret = "http://"+parsed.Host, parsed.Query().Get("secret")
	jar, _ := cookiejar.New(nil)
	v.client = &http.Client{Jar: jar, Timeout: waitLong(t)}
	return v
}

func (v *readsView) get(t *testing.T, path string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, v.base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Escouade-Secret", v.secret)
	return v.do(t, req)
}

func (v *readsView) post(t *testing.T, path string, form url.Values) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, v.base+path, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Escouade-Secret", v.secret)
	return v.do(t, req)
}

func (v *readsView) do(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	resp, err := v.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// stop interrupts serve, waits for it and checks its peak memory.
func (v *readsView) stop(t *testing.T) {
	t.Helper()
	v.cmd.Process.Signal(os.Interrupt)
	v.cmd.Wait()
	v.ended = true
	if rss := endedPeakKB(t, v.cmd); rss > maxRSSKB {
		t.Errorf("serve: peak memory %d MB, past %d MB", rss>>10, maxRSSKB>>10)
	}
}

// viewAddress reads serve's stdout up to the address it prints.
func viewAddress(t *testing.T, stdout io.Reader) string {
	t.Helper()
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if _, rest, ok := strings.Cut(sc.Text(), "http://"); ok {
				lines <- "http://" + strings.Fields(rest)[0]
				return
			}
		}
		close(lines)
	}()
	address, ok := <-lines
	if !ok {
		t.Fatal("serve ended without printing its address")
	}
	return address
}
