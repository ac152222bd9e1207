// Package acceptance drives the escouade-plugin command as a user would:
// each test starts `escouade-plugin run DIR` as a real process with a
// plugin folder holding a WASM module or a JS bundle, writes console lines
// on its stdin and waits for the answer, state and journal lines it writes
// back. Nothing of the host is imported: the tests see only the console.
package acceptance

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Built once by TestMain.
var (
	cliPath string                // the escouade-plugin binary
	modules = map[string]string{} // test module name → its plugin.wasm
	// sharedHome is a --home the tests share where that changes nothing
	// they test: its compile cache then holds each module once. Each
	// test's plugin has an id of its own, hence a journal of its own.
	sharedHome string
	repoRoot   string
)

// moduleBuilds are the test modules under testdata and how each is built.
var moduleBuilds = []struct {
	name, dir string
	args      []string
}{
	{"raw", "./testdata/raw", nil},                                // command shape, the protocol by hand
	{"kit", "./testdata/kitmod", []string{"-buildmode=c-shared"}}, // reactor shape, the Go kit
	{"badimport", "./testdata/badimport", nil},                    // imports evil.launch_missiles
}

func TestMain(m *testing.M) {
	flag.Parse()
	// The tests mostly wait on the processes they started: more of them at
	// once than the machine has cores keeps the package short, unless the
	// command line chose.
	chosen := false
	flag.Visit(func(f *flag.Flag) { chosen = chosen || f.Name == "test.parallel" })
	if !chosen {
		flag.Set("test.parallel", "16")
	}
	os.Exit(run(m))
}

func run(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "escouade-acceptance-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	if err := build(tmp); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	sharedHome = filepath.Join(tmp, "home")
	return m.Run()
}

// build builds the command and the test modules, side by side.
func build(tmp string) error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	repoRoot = filepath.Clean(filepath.Join(wd, "..", ".."))
	cliPath = filepath.Join(tmp, "escouade-plugin")
	errs := make(chan error, len(moduleBuilds)+1)
	var wg sync.WaitGroup
	goBuild := func(out, pkg string, env []string, args ...string) {
		defer wg.Done()
		cmd := exec.Command("go", append(append([]string{"build"}, args...), "-o", out, pkg)...)
		cmd.Dir = wd
		cmd.Env = append(os.Environ(), env...)
		if b, err := cmd.CombinedOutput(); err != nil {
			errs <- fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
		}
	}
	wg.Add(1)
	go goBuild(cliPath, "github.com/escouade-dev/escouade-plugin/cmd/escouade-plugin", nil)
	for _, mb := range moduleBuilds {
		out := filepath.Join(tmp, mb.name+".wasm")
		modules[mb.name] = out
		wg.Add(1)
		go goBuild(out, mb.dir, []string{"GOOS=wasip1", "GOARCH=wasm"}, mb.args...)
	}
	// raw built for this machine: a process plugin with the same answers.
	modules["raw-process"] = filepath.Join(tmp, "raw-process")
	wg.Add(1)
	go goBuild(modules["raw-process"], "./testdata/raw", nil)
	wg.Wait()
	close(errs)
	return <-errs
}

// waitLimit bounds every wait for a line: generous, since a loaded
// machine compiles a module slowly; the tests assert texts, not times.
const waitLimit = 90 * time.Second

var idCount atomic.Int64

// plugin is a plugin folder made for one test.
type plugin struct {
	dir, id string
}

// newPlugin writes a plugin folder: the manifest (run and extra keys
// merged), the module or bundle, and the given files.
func newPlugin(t *testing.T, run map[string]any, extra map[string]any, files map[string]string) plugin {
	t.Helper()
	dir := t.TempDir()
	id := fmt.Sprintf("dev.acceptance.p%d-%s", idCount.Add(1), strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name())))
	if len(id) > 100 {
		id = id[:100]
	}
	id = strings.TrimRight(id, "-")
	m := map[string]any{
		"id": id, "name": t.Name(), "version": "1.0.0",
		"escouade": map[string]any{"api": "1"}, "run": run, "activation": []string{"onCall"},
	}
	for k, v := range extra {
		m[k] = v
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "escouade-plugin.json"), string(b))
	for name, text := range files {
		writeFile(t, filepath.Join(dir, name), text)
	}
	return plugin{dir: dir, id: id}
}

// modulePlugin is a run.wasm plugin of the named test module.
func modulePlugin(t *testing.T, module string, extra map[string]any, files map[string]string) plugin {
	t.Helper()
	p := newPlugin(t, map[string]any{"wasm": "main.go"}, extra, files)
	b, err := os.ReadFile(modules[module])
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(p.dir, "plugin.wasm"), string(b))
	return p
}

// processPlugin is a process plugin running the raw module's source built
// for this machine.
func processPlugin(t *testing.T, extra map[string]any, files map[string]string) plugin {
	t.Helper()
	p := newPlugin(t, map[string]any{"command": []string{"./raw"}}, extra, files)
	b, err := os.ReadFile(modules["raw-process"])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.dir, "raw"), b, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// jsPlugin is a run.js plugin whose bundle is the testdata/js file named.
func jsPlugin(t *testing.T, bundle string, extra map[string]any, files map[string]string) plugin {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "js", bundle))
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]string{"dist/plugin.mjs": string(b)}
	for k, v := range files {
		all[k] = v
	}
	return newPlugin(t, map[string]any{"js": "dist/plugin.mjs"}, extra, all)
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// line is one line the console wrote, decoded.
type line struct {
	raw string
	Op  string          `json:"op"`
	ID  string          `json:"id"`
	Res json.RawMessage `json:"result"`
	Err *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Default string   `json:"default"`
	Reason  string   `json:"reason"`
	State   string   `json:"state"`
	Crashes int      `json:"crashes"`
	Line    string   `json:"line"`
	Lines   []string `json:"lines"`
}

// console is one running `escouade-plugin run`.
type console struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.WriteCloser
	mu    sync.Mutex
	lines []line
	more  chan struct{} // closed and replaced at each new line
	done  chan struct{} // closed when stdout ends
	exit  error
}

// start runs `escouade-plugin run DIR --home HOME --follow` plus flags.
func start(t *testing.T, p plugin, home string, flags ...string) *console {
	t.Helper()
	if home == "" {
		home = sharedHome
	}
	args := append([]string{"run", p.dir, "--home", home, "--follow"}, flags...)
	cmd := exec.Command(cliPath, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &console{t: t, cmd: cmd, stdin: stdin, more: make(chan struct{}), done: make(chan struct{})}
	go c.read(stdout)
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-c.done:
		case <-time.After(waitLimit):
			cmd.Process.Kill()
			<-c.done
		}
		if t.Failed() {
			t.Logf("console of %s:\n%s\nstderr:\n%s", p.id, c.text(), stderr.String())
		}
	})
	return c
}

func (c *console) read(r io.Reader) {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 64<<10), 16<<20)
	for s.Scan() {
		l := line{raw: s.Text()}
		json.Unmarshal(s.Bytes(), &l)
		c.mu.Lock()
		c.lines = append(c.lines, l)
		close(c.more)
		c.more = make(chan struct{})
		c.mu.Unlock()
	}
	c.exit = c.cmd.Wait()
	close(c.done)
}

func (c *console) text() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	for _, l := range c.lines {
		b.WriteString(l.raw + "\n")
	}
	return b.String()
}

// send writes one console line.
func (c *console) send(v any) {
	c.t.Helper()
	b, ok := v.(string)
	if !ok {
		j, err := json.Marshal(v)
		if err != nil {
			c.t.Fatal(err)
		}
		b = string(j)
	}
	if _, err := io.WriteString(c.stdin, b+"\n"); err != nil {
		c.t.Fatalf("writing %s: %v", b, err)
	}
}

// waitFrom waits for the first line at index from or later that matches,
// and returns it with its index.
func (c *console) waitFrom(from int, what string, match func(line) bool) (line, int) {
	c.t.Helper()
	deadline := time.NewTimer(waitLimit)
	defer deadline.Stop()
	for i := from; ; {
		c.mu.Lock()
		for ; i < len(c.lines); i++ {
			if c.lines[i].Op == "error" {
				l := c.lines[i]
				c.mu.Unlock()
				c.t.Fatalf("waiting for %s, the console said: %s", what, l.raw)
			}
			if match(c.lines[i]) {
				l := c.lines[i]
				c.mu.Unlock()
				return l, i
			}
		}
		more := c.more
		c.mu.Unlock()
		select {
		case <-more:
		case <-c.done:
			c.mu.Lock()
			n := len(c.lines)
			c.mu.Unlock()
			if i >= n {
				c.t.Fatalf("the console ended (%v) before %s", c.exit, what)
			}
		case <-deadline.C:
			c.t.Fatalf("no %s within %s", what, waitLimit)
		}
	}
}

func (c *console) wait(what string, match func(line) bool) line {
	c.t.Helper()
	l, _ := c.waitFrom(0, what, match)
	return l
}

// answer waits for the answer line of id.
func (c *console) answer(id string) line {
	c.t.Helper()
	return c.wait("answer "+id, func(l line) bool { return l.Op == "answer" && l.ID == id })
}

// call sends a call and waits for its answer.
func (c *console) call(id, method string, params any) line {
	c.t.Helper()
	c.send(map[string]any{"op": "call", "id": id, "method": method, "params": params})
	return c.answer(id)
}

// result calls and decodes the result into out, failing on anything else.
func (c *console) result(id, method string, params any, out any) {
	c.t.Helper()
	a := c.call(id, method, params)
	if a.Res == nil || a.Err != nil || a.Default != "" {
		c.t.Fatalf("%s: want a result, got %s", method, a.raw)
	}
	if out != nil {
		if err := json.Unmarshal(a.Res, out); err != nil {
			c.t.Fatalf("%s: %v in %s", method, err, a.raw)
		}
	}
}

// journal waits for the n-th (1-based) journal line whose text contains
// all of parts, and returns its text.
func (c *console) journalN(n int, parts ...string) string {
	c.t.Helper()
	seen := 0
	l := c.wait(fmt.Sprintf("journal line #%d with %q", n, parts), func(l line) bool {
		if l.Op != "journal-line" {
			return false
		}
		for _, p := range parts {
			if !strings.Contains(l.Line, p) {
				return false
			}
		}
		seen++
		return seen == n
	})
	return l.Line
}

func (c *console) journal(parts ...string) string {
	c.t.Helper()
	return c.journalN(1, parts...)
}

// index is the index of the first line that matches, or -1.
func (c *console) index(match func(line) bool) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, l := range c.lines {
		if match(l) {
			return i
		}
	}
	return -1
}

// state asks for the state and waits for the state line that answers.
func (c *console) state() line {
	c.t.Helper()
	l, _ := c.stateAt()
	return l
}

// stateAt is state with the index of the line that answered.
func (c *console) stateAt() (line, int) {
	c.t.Helper()
	c.mu.Lock()
	from := len(c.lines)
	c.mu.Unlock()
	c.send(`{"op":"state"}`)
	return c.waitFrom(from, "a state line", func(l line) bool { return l.Op == "state" })
}

// waitState waits for a state line with that state.
func (c *console) waitState(state string) line {
	c.t.Helper()
	return c.wait("state "+state, func(l line) bool { return l.Op == "state" && l.State == state })
}

// closeAndWait closes stdin and waits for the command's end.
func (c *console) closeAndWait() error {
	c.t.Helper()
	c.stdin.Close()
	select {
	case <-c.done:
	case <-time.After(waitLimit):
		c.t.Fatalf("the console did not end within %s of its stdin's end", waitLimit)
	}
	return c.exit
}

// stamp is the time of a journal line.
func stamp(t *testing.T, journalLine string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339Nano, strings.SplitN(journalLine, " ", 2)[0])
	if err != nil {
		t.Fatalf("journal line %q: %v", journalLine, err)
	}
	return at
}

// mustJSON is v as JSON text.
func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
