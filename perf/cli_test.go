package perf

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// cliEnv lists builds of the command to compare, name=path separated by
// commas ("wazero=/x/escouade-plugin-a,wazy=/x/escouade-plugin-b"); unset,
// the command is built from this checkout.
const cliEnv = "ESCOUADE_PERF_CLIS"

// cliCalls is how many calls each run of the console times, after its first.
const cliCalls = 30

// cliPlugin is one plugin folder run through the command's console.
type cliPlugin struct {
	name string
	dir  string
}

// TestReportCLI measures what the issue judges, black-box through the
// built command's run console, interleaved in rounds: a fresh run's first
// answer and a call's round trip, for the hello-wasm source as a module
// and as a process, and for the hello-js bundle in the engine and under
// node. Every build of the command named in ESCOUADE_PERF_CLIS runs in
// every round, so two engines are compared under the same load. The
// console's own work is on both sides of each ratio.
//
//	cd perf && ESCOUADE_PERF=1 go test -run TestReportCLI -v .
func TestReportCLI(t *testing.T) {
	if os.Getenv(perfEnv) != "1" {
		t.Skipf("set %s=1 to measure through the command", perfEnv)
	}
	clis := chosenCLIs(t)
	plugins := cliPlugins(t)
	rounds := 5
	if n, err := strconv.Atoi(os.Getenv("ESCOUADE_PERF_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	type key struct{ cli, plugin string }
	first := map[key][]time.Duration{}
	call := map[key][]time.Duration{}
	for _, cli := range clis {
		for _, p := range plugins {
			cliRun(t, cli, p) // fills each build's compile cache
		}
	}
	for round := range rounds {
		for i := range clis {
			cli := clis[(i+round)%len(clis)]
			for _, p := range plugins {
				f, c := cliRun(t, cli, p)
				k := key{cli.name, p.name}
				first[k] = append(first[k], f)
				call[k] = append(call[k], c)
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n| build | row | first answer, fresh run | call round trip |\n|---|---|---:|---:|\n")
	for _, cli := range clis {
		for _, p := range plugins {
			k := key{cli.name, p.name}
			fmt.Fprintf(&b, "| %s | %s | %v | %v |\n", cli.name, p.name, median(first[k]).Round(100*time.Microsecond), median(call[k]).Round(100*time.Nanosecond))
		}
	}
	ratio := func(m map[key][]time.Duration, cli, a, over string) float64 {
		var rs []float64
		for i := range m[key{cli, a}] {
			if i < len(m[key{cli, over}]) {
				rs = append(rs, float64(m[key{cli, a}][i])/float64(m[key{cli, over}][i]))
			}
		}
		if len(rs) == 0 {
			return 0
		}
		return median(rs)
	}
	fmt.Fprintf(&b, "\n| build | module call ÷ process call (≤ 1.3×) | bundle call ÷ node call (≤ 1.3×) | module first answer ÷ process first answer (≤ 1.5×) |\n|---|---:|---:|---:|\n")
	for _, cli := range clis {
		fmt.Fprintf(&b, "| %s | %.2f× | %.2f× | %.2f× |\n", cli.name,
			ratio(call, cli.name, "go module", "go process"),
			ratio(call, cli.name, "js bundle", "js under node"),
			ratio(first, cli.name, "go module", "go process"))
	}
	t.Log(b.String())
}

// cliBuild is a build of the command, with a home of its own.
type cliBuild struct{ name, path, home string }

// chosenCLIs are the builds of ESCOUADE_PERF_CLIS, or this checkout's.
func chosenCLIs(t *testing.T) []cliBuild {
	if list := os.Getenv(cliEnv); list != "" {
		var out []cliBuild
		for _, item := range strings.Split(list, ",") {
			name, path, ok := strings.Cut(item, "=")
			if !ok {
				t.Fatalf("%s: %q is not name=path", cliEnv, item)
			}
			out = append(out, cliBuild{name, path, t.TempDir()})
		}
		return out
	}
	bin := filepath.Join(t.TempDir(), "escouade-plugin")
	goBuild(t, nil, bin, "github.com/escouade-dev/escouade-plugin/cmd/escouade-plugin")
	return []cliBuild{{"this build", bin, t.TempDir()}}
}

// cliPlugins copies hello-wasm twice (built as a module, and as a process
// of the same source) and hello-js twice (its bundle run by the engine,
// and under node when node is installed).
func cliPlugins(t testing.TB) []cliPlugin {
	examples := filepath.Join("..", "examples")
	tmp := t.TempDir()
	module := copyPlugin(t, filepath.Join(examples, "hello-wasm"), filepath.Join(tmp, "module"), map[string]any{"wasm": "plugin.wasm"})
	goBuild(t, []string{"GOOS=wasip1", "GOARCH=wasm"}, filepath.Join(module, "plugin.wasm"), "-buildmode=c-shared", "github.com/escouade-dev/escouade-plugin/examples/hello-wasm")
	process := copyPlugin(t, filepath.Join(examples, "hello-wasm"), filepath.Join(tmp, "process"), map[string]any{"command": []string{"./hello"}})
	goBuild(t, nil, filepath.Join(process, "hello"), "github.com/escouade-dev/escouade-plugin/examples/hello-wasm")
	plugins := []cliPlugin{{"go module", module}, {"go process", process}}
	bundle := copyPlugin(t, filepath.Join(examples, "hello-js"), filepath.Join(tmp, "bundle"), nil)
	plugins = append(plugins, cliPlugin{"js bundle", bundle})
	if node, err := exec.LookPath("node"); err == nil {
		underNode := copyPlugin(t, filepath.Join(examples, "hello-js"), filepath.Join(tmp, "node"), map[string]any{"command": []string{node, "dist/plugin.mjs"}})
		plugins = append(plugins, cliPlugin{"js under node", underNode})
	} else {
		t.Log("no node: the bundle's row under node is left out")
	}
	return plugins
}

// goBuild builds pkg (the last of args) to out.
func goBuild(t testing.TB, env []string, out string, args ...string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), append([]string{"build", "-o", out}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	// The main module builds its own packages: this module's go.sum
	// holds only what its tests import.
	cmd.Dir = ".."
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %v: %v\n%s", args, err, b)
	}
}

// copyPlugin copies a plugin folder's files (not its subfolders but dist)
// and sets its manifest's run when run is not nil.
func copyPlugin(t testing.TB, from, to string, run any) string {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if d.IsDir() {
			if rel != "." && rel != "dist" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, info.Mode().Perm()|0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	if run == nil {
		return to
	}
	path := filepath.Join(to, "escouade-plugin.json")
	var m map[string]any
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil {
		t.Fatal(err)
	}
	m["run"] = run
	if b, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return to
}

// cliRun starts `run` on the plugin, with a home of the build's own
// (its compile cache kept from one run to the next), and returns the time from
// the start of the command to its first answer, then the median of
// cliCalls more calls answered one after the other.
func cliRun(t *testing.T, cli cliBuild, p cliPlugin) (first, call time.Duration) {
	t.Helper()
	home := cli.home
	cmd := exec.Command(cli.path, "run", p.dir, "--secret", "token=s3cret")
	cmd.Env = append(os.Environ(), "ESCOUADE_HOME="+home)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out := bufio.NewReader(outPipe)
	roundTrip := func(id int) {
		line := fmt.Sprintf(`{"op":"call","id":"c%d","method":"hello/echo","params":{"n":%d}}`+"\n", id, id)
		if _, err := io.WriteString(in, line); err != nil {
			t.Fatalf("%s %s: %v; stderr:\n%s", cli.name, p.name, err, stderr.String())
		}
		answer, err := out.ReadString('\n')
		if err != nil || !strings.Contains(answer, `"result"`) {
			t.Fatalf("%s %s: answer %q, %v; stderr:\n%s", cli.name, p.name, answer, err, stderr.String())
		}
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	roundTrip(0)
	first = time.Since(start)
	calls := make([]time.Duration, cliCalls)
	for i := range calls {
		began := time.Now()
		roundTrip(i + 1)
		calls[i] = time.Since(began)
	}
	_ = in.Close()
	_ = cmd.Wait()
	return first, median(calls)
}
