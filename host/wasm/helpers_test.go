package wasm

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// testDeadline bounds every wait of a test on an instance: a broken
// transport fails the test instead of hanging it.
const testDeadline = 30 * time.Second

// fixtures is where the test modules are built, once per test binary.
var fixtures struct {
	dir   string
	cache string // the compile cache shared by the tests (testCache)
	mu    sync.Mutex
	built map[string]*built
}

type built struct {
	once  sync.Once
	bytes []byte
	err   error
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "wasm-fixtures")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fixtures.dir = dir
	fixtures.cache = testCache(dir)
	fixtures.built = map[string]*built{}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// testCache is the compile cache the tests share: kept between runs in
// the user's cache folder, since compiling a Go module under the race
// detector takes a minute, and its entries are keyed by the module's hash
// and wazero's version, so a stale one is never used.
func testCache(tmp string) string {
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "escouade-plugin-tests", "wasm-cache")
	}
	return filepath.Join(tmp, "cache")
}

// fixture returns the bytes of a test module of tests/fixtures/wasm,
// built the first time it is asked for: "reactor", "command",
// "command-poll" with Go, "c-command" and "c-reactor" with clang.
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	fixtures.mu.Lock()
	b := fixtures.built[name]
	if b == nil {
		b = &built{}
		fixtures.built[name] = b
	}
	fixtures.mu.Unlock()
	b.once.Do(func() { b.bytes, b.err = build(name) })
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.bytes
}

func build(name string) ([]byte, error) {
	src := filepath.Join("..", "..", "tests", "fixtures", "wasm", name)
	out := filepath.Join(fixtures.dir, name+".wasm")
	var cmd *exec.Cmd
	switch name {
	case "c-command":
		clang, err := exec.LookPath("clang-19")
		if err != nil {
			return nil, fmt.Errorf("clang-19 builds the C module: %v", err)
		}
		cmd = exec.Command(clang, "--target=wasm32-wasi", "--sysroot=/usr", "-O2", "-o", out, filepath.Join(src, "echo.c"))
	case "c-reactor":
		clang, err := exec.LookPath("clang-19")
		if err != nil {
			return nil, fmt.Errorf("clang-19 builds the C module: %v", err)
		}
		cmd = exec.Command(clang, "--target=wasm32-wasi", "--sysroot=/usr", "-O2", "-mexec-model=reactor", "-o", out, filepath.Join(src, "echo.c"))
	case "reactor":
		cmd = exec.Command(goTool(), "build", "-buildmode=c-shared", "-o", out, "./"+src)
	default:
		cmd = exec.Command(goTool(), "build", "-o", out, "./"+src)
	}
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("build %s: %v\n%s", name, err, b)
	}
	return os.ReadFile(out)
}

func goTool() string { return filepath.Join(runtime.GOROOT(), "bin", "go") }

// pluginDir makes a plugin folder holding module as plugin.wasm, and the
// other files given (name → contents), and returns its manifest.
func pluginDir(t testing.TB, module []byte, files map[string]string) *manifest.Manifest {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ModuleFile), module, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return &manifest.Manifest{ID: "dev.escouade.test", Dir: dir, Run: &manifest.Run{WASM: "main.go"}}
}

// newTransport makes a Transport on the shared compile cache, closed when
// the test ends.
func newTransport(t testing.TB, o Options) *Transport {
	t.Helper()
	if o.CacheDir == "" {
		o.CacheDir = fixtures.cache
	}
	tr, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tr.Close(context.Background()) })
	return tr
}

// journal collects what a transport says of an instance.
type journal struct {
	mu    sync.Mutex
	lines []string
}

func (j *journal) add(tag, text string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.lines = append(j.lines, tag+" "+text)
}

func (j *journal) all() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]string(nil), j.lines...)
}

// launch starts m's module and stops it when the test ends.
func launch(t testing.TB, tr *Transport, spec transport.LaunchSpec) transport.Program {
	t.Helper()
	prog, err := tr.Launch(context.Background(), spec)
	if err != nil {
		t.Fatalf("Launch: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = prog.Stop(ctx, transport.StopOptions{})
	})
	return prog
}

// connect speaks JSON-RPC to prog; notifications it sends go to notes.
func connect(t testing.TB, prog transport.Program, notes chan<- string) *jsonrpc.Conn {
	t.Helper()
	conn := jsonrpc.NewConn(prog.Stdout(), prog.Stdin(), jsonrpc.Options{
		Handle: func(_ context.Context, m *jsonrpc.Message) (any, error) {
			if notes != nil {
				notes <- m.Method
			}
			return nil, nil
		},
	})
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// call makes a call and decodes its result into a value of type T.
func call[T any](t testing.TB, conn *jsonrpc.Conn, method string, params any) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	defer cancel()
	res, err := conn.Call(ctx, method, params)
	if err != nil {
		t.Fatalf("call %s: %v", method, err)
	}
	var v T
	if err := json.Unmarshal(res, &v); err != nil {
		t.Fatalf("call %s: result %s: %v", method, res, err)
	}
	return v
}

// ended waits for prog to end and returns its Exit.
func ended(t testing.TB, prog transport.Program) transport.Exit {
	t.Helper()
	select {
	case <-prog.Done():
		return prog.Exit()
	case <-time.After(testDeadline):
		t.Fatalf("%s did not end", prog.ID())
		return transport.Exit{}
	}
}

// specOf is what the host gives the transport to launch m's program (its
// id, folder and run, as host.LaunchSpecOf reads them), with the
// environment, the stderr, the journal and the consent of more, if given.
func specOf(m *manifest.Manifest, more ...transport.LaunchSpec) transport.LaunchSpec {
	var spec transport.LaunchSpec
	if len(more) > 0 {
		spec = more[0]
	}
	spec.Name, spec.Dir, spec.Kind = m.ID, m.Dir, string(m.Run.Kind())
	if m.Run != nil {
		spec.Command, spec.File = m.Run.Command, m.Run.JS
	}
	return spec
}
