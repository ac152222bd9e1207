package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/internal/testutil"
	"github.com/escouade-dev/escouade-plugin/registry"

	"github.com/escouade-dev/escouade-plugin/acp"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/google/go-cmp/cmp"
)

// fakeDir is the fixture's folder: its manifest and its sources.
const fakeDir = "../tests/fixtures/plugins/fake-acp"

// waitLimit bounds the close of a session at a test's end.
const waitLimit = 30 * time.Second

// awaitLimit bounds a wait for an item that may never come, so the test
// fails with what it got rather than hang: it scales with the test
// binary's deadline (go test -timeout), leaving a tenth of what remains to
// report, and is an hour without one. A loaded machine under -race reads
// a 20 MiB line slowly: no fixed time is the point of these waits.
func awaitLimit(t *testing.T) time.Duration {
	deadline, ok := t.Deadline()
	if !ok {
		return time.Hour
	}
	return max(time.Until(deadline)*9/10, time.Second)
}

// binDir holds the fake agent, built once for the test binary.
var binDir string

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "harness-test-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if err := testutil.GoBuild(fakeDir, filepath.Join(dir, "fake-acp")); err != nil {
		fmt.Fprintf(os.Stderr, "building the fake agent: %v\n", err)
		return 1
	}
	binDir = dir
	return m.Run()
}

// fakeManifest loads the fake agent's manifest, which change may alter.
func fakeManifest(t *testing.T, change func(h *manifest.Harness)) *manifest.Manifest {
	t.Helper()
	m, err := manifest.Load(fakeDir, manifest.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if change != nil {
		change(&m.Contributes.Harnesses[0])
	}
	return m
}

// world is the folders of one test: the agent's, a fenced project's and an
// open folder outside both.
type world struct {
	dir, fence, out string
}

func newWorld(t *testing.T) world {
	t.Helper()
	root := t.TempDir()
	w := world{dir: filepath.Join(root, "agent"), fence: filepath.Join(root, "fenced"), out: filepath.Join(root, "open")}
	for _, d := range []string{w.dir, w.fence, w.out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// script writes a testdata script with its folders filled in.
func (w world) script(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.NewReplacer("@DIR@", inJSON(w.dir), "@FENCE@", inJSON(w.fence), "@OUT@", inJSON(w.out)).Replace(string(b))
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// inJSON is s as it is written inside a JSON string: a Windows path's
// backslashes escaped.
func inJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// fixtureScript is a script of the fake agent's own folder.
func fixtureScript(name string) string {
	abs, _ := filepath.Abs(filepath.Join(fakeDir, "scripts", name))
	return abs
}

// agentEnvFor is the app environment of a test agent: the fake in PATH,
// its script and the file that records what it receives.
func agentEnvFor(script, record string) []string {
	return []string{"PATH=" + binDir, "FAKE_ACP_SCRIPT=" + script, "FAKE_ACP_RECORD=" + record, "HOME=" + os.TempDir()}
}

// run is one session under test, its items gathered as they come.
type run struct {
	t      *testing.T
	s      *Session
	record string

	mu    sync.Mutex
	items []acp.Item
	seen  int // items already handed out by until
	wake  chan struct{}
}

// start launches the fake agent with script under opts.
func start(t *testing.T, script string, opts Options) *run {
	t.Helper()
	r := &run{t: t, record: filepath.Join(t.TempDir(), "received.jsonl"), wake: make(chan struct{}, 1)}
	if opts.Manifest == nil {
		opts.Manifest = fakeManifest(t, nil)
	}
	if opts.Env == nil {
		opts.Env = agentEnvFor(script, r.record)
	}
	opts.OnItem = r.add
	if opts.Admit == nil {
		opts.Admit = registry.AnyFolder // the fixture's folder, run as the CLI's harness DIR runs one
	}
	s, err := Start(context.Background(), opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	r.s = s
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		s.Close(ctx)
	})
	return r
}

func (r *run) add(it acp.Item) {
	r.mu.Lock()
	r.items = append(r.items, it)
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// until waits for an item matching want and returns the items since the
// last call, that one included.
func (r *run) until(want func(acp.Item) bool) []acp.Item {
	r.t.Helper()
	limit := awaitLimit(r.t)
	deadline := time.After(limit)
	for {
		r.mu.Lock()
		for i := r.seen; i < len(r.items); i++ {
			if want(r.items[i]) {
				got := append([]acp.Item(nil), r.items[r.seen:i+1]...)
				r.seen = i + 1
				r.mu.Unlock()
				return got
			}
		}
		r.mu.Unlock()
		select {
		case <-r.wake:
		case <-deadline:
			r.mu.Lock()
			defer r.mu.Unlock()
			r.t.Fatalf("no awaited item in %s (the test's deadline nears); got %s", limit, brief(r.items[r.seen:]))
		}
	}
}

func (r *run) untilType(typ string) []acp.Item {
	r.t.Helper()
	return r.until(func(it acp.Item) bool { return it.Type == typ })
}

// untilText waits for an agent text chunk holding s.
func (r *run) untilText(s string) []acp.Item {
	r.t.Helper()
	return r.until(func(it acp.Item) bool { return it.Type == acp.TypeText && strings.Contains(it.Text, s) })
}

// received lists the methods the agent received, in order.
func (r *run) received() []map[string]json.RawMessage {
	r.t.Helper()
	b, err := os.ReadFile(r.record)
	if err != nil {
		r.t.Fatal(err)
	}
	var msgs []map[string]json.RawMessage
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			r.t.Fatalf("recorded line %q: %v", l, err)
		}
		msgs = append(msgs, m)
	}
	return msgs
}

func (r *run) methods() []string {
	var out []string
	for _, m := range r.received() {
		var method string
		json.Unmarshal(m["method"], &method)
		if method != "" {
			out = append(out, method)
		}
	}
	return out
}

func (r *run) must(err error) {
	r.t.Helper()
	if err != nil {
		r.t.Fatal(err)
	}
}

// brief shows items one per line, for failure messages.
func brief(items []acp.Item) string {
	var b strings.Builder
	for _, it := range items {
		j, _ := json.Marshal(it)
		if len(j) > 300 {
			j = append(j[:300], "…"...)
		}
		fmt.Fprintf(&b, "\n  %s", j)
	}
	return b.String()
}

func diff(t *testing.T, what string, want, got any, opts ...cmp.Option) {
	t.Helper()
	if d := cmp.Diff(want, got, opts...); d != "" {
		t.Errorf("%s (-want +got):\n%s", what, d)
	}
}

// ofType keeps the items of the given types.
func ofType(items []acp.Item, types ...string) []acp.Item {
	var out []acp.Item
	for _, it := range items {
		for _, typ := range types {
			if it.Type == typ {
				out = append(out, it)
			}
		}
	}
	return out
}

func texts(items []acp.Item, typ string) []string {
	var out []string
	for _, it := range ofType(items, typ) {
		out = append(out, it.Text)
	}
	return out
}

func ptr[T any](v T) *T { return &v }
