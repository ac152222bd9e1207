package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/host/wasm"
	"github.com/escouade-dev/escouade-plugin/internal/testutil"
	"github.com/escouade-dev/escouade-plugin/journal"
	"github.com/escouade-dev/escouade-plugin/modules"
	"github.com/escouade-dev/escouade-plugin/registry"
	"github.com/escouade-dev/escouade-plugin/web"
)

func TestServeRefusesBadFlags(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--addr", "0.0.0.0:7777"}, "loopback address only"},
		{[]string{"serve", "--addr", "192.168.1.2:7777"}, "loopback address only"},
		{[]string{"serve", "--addr", "example.com:80"}, "loopback address only"},
		{[]string{"serve", "--addr", "7777"}, "want HOST:PORT"},
		{[]string{"serve", "--secret", "token=x"}, "--secret names no plugin here"},
		{[]string{"serve", "--settings", "s.json"}, "--settings names no plugin here"},
		{[]string{"serve", "--lang", "de"}, `--lang "de": want en or fr`},
		{[]string{"serve", "extra"}, "serve takes no arguments"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, _, stderr := runCLI(t, "", append(c.args, "--home", t.TempDir())...)
			if code != exitUsage || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, exitUsage, c.want)
			}
			if strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
				t.Errorf("the error is not one line: %q", stderr)
			}
		})
	}
}

func TestLoopbackAddr(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:7777": "127.0.0.1:7777",
		"localhost:0":    "127.0.0.1:0",
		"[::1]:7777":     "[::1]:7777",
		"127.0.0.2:80":   "127.0.0.2:80",
	} {
		if got, err := loopbackAddr(in); err != nil || got != want {
			t.Errorf("loopbackAddr(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// served is a serve command running in-process until stop.
type served struct {
	base, secret string
	stop         func() (code int, stdout string)
	out          *outputLines
}

// outputLines are the lines serve printed after its address, kept as
// they come so that a test can wait for one.
type outputLines struct {
	mu    sync.Mutex
	lines []string
	more  chan struct{} // closed and replaced at each line, closed at the end
	ended bool
}

func (o *outputLines) read(r *bufio.Reader) {
	for {
		line, err := r.ReadString('\n')
		o.mu.Lock()
		if line != "" {
			o.lines = append(o.lines, line)
		}
		o.ended = err != nil
		close(o.more)
		o.more = make(chan struct{})
		o.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// wait waits for a line holding text, until serve's output ends.
func (o *outputLines) wait(t *testing.T, text string) {
	t.Helper()
	for {
		o.mu.Lock()
		all, ended, more := strings.Join(o.lines, ""), o.ended, o.more
		o.mu.Unlock()
		if strings.Contains(all, text) {
			return
		}
		if ended {
			t.Fatalf("serve never said %q:\n%s", text, all)
		}
		<-more
	}
}

func (o *outputLines) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return strings.Join(o.lines, "")
}

func startServe(t *testing.T, home string) served {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	old := serveContext
	serveContext = func() (context.Context, context.CancelFunc) { return ctx, cancel }
	t.Cleanup(func() { serveContext = old })
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	var errOut strings.Builder
	go func() {
		code := run([]string{"serve", "--home", home, "--keychain", "memory", "--addr", "127.0.0.1:0"}, strings.NewReader(""), outW, &errOut)
		outW.Close()
		done <- code
	}()
	r := bufio.NewReader(outR)
	first, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("serve printed no address: %v (%s)", err, errOut.String())
	}
	u, err := url.Parse(strings.TrimSpace(first[strings.Index(first, "http://"):]))
	if err != nil {
		t.Fatal(err)
	}
	out := &outputLines{more: make(chan struct{})}
	read := make(chan struct{})
	go func() {
		defer close(read)
		out.read(r)
	}()
	return served{
		base:   "http://" + u.Host,
		secret: u.Query().Get(web.SecretParam),
		out:    out,
		stop: func() (int, string) {
			cancel()
			code := <-done
			<-read
			return code, out.String()
		},
	}
}

func (s served) post(t *testing.T, path string, form url.Values) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, s.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set(web.SecretHeader, s.secret)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %d %s", path, res.StatusCode, body)
	}
}

func registryFile(t *testing.T, home string) []registry.Entry {
	t.Helper()
	reg, err := registry.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	return reg.List()
}

// Install and disable through the page leave the home as install and
// disable through the CLI do.
func TestServeLeavesTheStateTheCLILeaves(t *testing.T) {
	dir := pluginDir(t, "1.0.0")
	cliHome, pageHome := t.TempDir(), t.TempDir()
	if code, _, stderr := runCLI(t, "", "install", dir, "--home", cliHome); code != exitOK {
		t.Fatalf("install: %d %s", code, stderr)
	}
	s := startServe(t, pageHome)
	s.post(t, "/install", url.Values{"dir": {dir}, "secrets": {"token"}})
	if diff := cmp.Diff(registryFile(t, cliHome), registryFile(t, pageHome)); diff != "" {
		t.Errorf("after install, CLI home (-) and page home (+):\n%s", diff)
	}
	if code, _, stderr := runCLI(t, "", "disable", "dev.test.cli", "--home", cliHome); code != exitOK {
		t.Fatalf("disable: %d %s", code, stderr)
	}
	s.post(t, "/plugins/dev.test.cli/disable", nil)
	if diff := cmp.Diff(registryFile(t, cliHome), registryFile(t, pageHome)); diff != "" {
		t.Errorf("after disable, CLI home (-) and page home (+):\n%s", diff)
	}
	code, out := s.stop()
	if code != exitOK || !strings.Contains(out, "Stopped: every plugin was shut down.") {
		t.Errorf("stop: exit %d, %q", code, out)
	}
}

// SIGTERM stops the view as Host.Close does: the running plugin gets
// shutdown and its program ends.
func TestServeStopsGracefullyOnSIGTERM(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on Windows")
	}
	bin := filepath.Join(t.TempDir(), "escouade-plugin")
	if err := testutil.GoBuild(".", bin); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	dir := pluginDir(t, "1.0.0")
	if code, _, stderr := runCLI(t, "", "install", dir, "--home", home); code != exitOK {
		t.Fatalf("install: %d %s", code, stderr)
	}
	cmd := exec.Command(bin, "serve", "--home", home, "--keychain", "memory", "--addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "FAKE_PLUGIN=1")
	stdout, _ := cmd.StdoutPipe()
	var stderr testutil.SyncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stdout)
	first, err := r.ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		t.Fatalf("no address: %v %s", err, stderr.String())
	}
	u, _ := url.Parse(strings.TrimSpace(first[strings.Index(first, "http://"):]))
	s := served{base: "http://" + u.Host, secret: u.Query().Get(web.SecretParam)}
	s.post(t, "/plugins/dev.test.cli/restart", nil) // starts it now
	s.waitJournal(t, "dev.test.cli", "initialize answered")

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(r)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve after SIGTERM: %v (%s)", err, stderr.String())
	}
	if !strings.Contains(string(rest), "Stopped: every plugin was shut down.") {
		t.Errorf("stdout after SIGTERM: %q", rest)
	}
	lines, err := journal.ReadTail(home, "dev.test.cli", 500)
	if err != nil {
		t.Fatal(err)
	}
	if last := lines[len(lines)-1]; !strings.Contains(last, "stopped: the host closed") {
		t.Errorf("the journal ends with %q, want the host's close", last)
	}
}

// waitJournal waits until the journal of id holds text, reading the view's
// own live journal stream: its tail first, then each line as it is
// written.
func (s served) waitJournal(t *testing.T, id, text string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second) // generous: a loaded machine, a module to instantiate
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/plugins/"+url.PathEscape(id)+"/journal/events", nil)
	req.Header.Set(web.SecretHeader, s.secret)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	lines := bufio.NewScanner(res.Body)
	lines.Buffer(make([]byte, 64<<10), 1<<20)
	var seen []string
	for lines.Scan() {
		if strings.Contains(lines.Text(), text) {
			return
		}
		seen = append(seen, lines.Text())
	}
	t.Fatalf("the journal of %s never said %q:\n%s", id, text, strings.Join(seen, "\n"))
}

func TestServeDamagedRegistry(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, registry.FileName), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "", "serve", "--home", home, "--keychain", "memory", "--addr", "127.0.0.1:0")
	if code != exitFail || !strings.Contains(stderr, "is damaged") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// A module plugin installed through the page is compiled at install, as
// install compiles it, and runs in the view as under run.
func TestServeInstallsAndRunsAModule(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles a WASM module")
	}
	dir := helloWASM(t)
	home := t.TempDir()
	s := startServe(t, home)
	s.post(t, "/install", url.Values{"dir": {dir}})
	if entries, _ := os.ReadDir(filepath.Join(home, "wasm-cache")); len(entries) == 0 {
		t.Error("nothing compiled into the cache at install")
	}
	reg := registryFile(t, home)
	if len(reg) != 1 {
		t.Fatalf("registry: %+v", reg)
	}
	s.post(t, "/plugins/"+reg[0].ID+"/restart", nil)
	s.waitJournal(t, reg[0].ID, "initialize answered")
	if code, out := s.stop(); code != exitOK {
		t.Errorf("stop: %d %s", code, out)
	}
}

// A serve of a new version compiles the modules installed before it, in
// the background, before their first start needs them.
func TestServeCompilesTheInstalledModulesAhead(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the JS engine")
	}
	home := t.TempDir()
	example, err := filepath.Abs(filepath.Join("..", "..", "examples", "hello-js"))
	if err != nil {
		t.Fatal(err)
	}
	if err := registry.Update(home, func(r *registry.Registry) error {
		r.Put(registry.Entry{ID: "dev.escouade.example.hello-js", Dir: example, Version: "0.1.0"})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, home)
	s.out.wait(t, "the installed plugins are compiled for this version of Escouade (1 of 1)")
	if n := wasm.CachedModules(modules.CacheDir(home), host.AppVersion); n == 0 {
		t.Error("the compile cache is empty after the warm said it compiled")
	}
	if code, out := s.stop(); code != exitOK || !strings.Contains(out, "compiling the installed plugins for this version of Escouade: dev.escouade.example.hello-js (1 of 1)") {
		t.Errorf("stop: %d %s", code, out)
	}
	again := startServe(t, home)
	if code, out := again.stop(); code != exitOK || strings.Contains(out, "compiling the installed plugins") {
		t.Errorf("the second start of a version compiled again: %d %s", code, out)
	}
}

// helloWASM is a copy of examples/hello-wasm with its plugin.wasm built
// from the example's source, as its build.sh builds it.
func helloWASM(t *testing.T) string {
	t.Helper()
	src, err := filepath.Abs(filepath.Join("..", "..", "examples", "hello-wasm"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"escouade-plugin.json", "greetings.json"} {
		data, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := testutil.BuildReactor(src, filepath.Join(dir, "plugin.wasm")); err != nil {
		t.Fatal(err)
	}
	return dir
}
