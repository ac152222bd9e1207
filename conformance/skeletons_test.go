package conformance

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// guide is the plugin authors' guide, whose skeletons must pass the bench
// as printed: a newcomer copies them first.
var guide = filepath.Join("..", "docs", "writing-a-plugin.md")

// codeBlocks returns the fenced blocks of a part of the guide, by language,
// in order.
func codeBlocks(text string) map[string][]string {
	blocks := map[string][]string{}
	fence := regexp.MustCompile("(?ms)^```([a-z]*)\n(.*?)^```")
	for _, m := range fence.FindAllStringSubmatch(text, -1) {
		blocks[m[1]] = append(blocks[m[1]], m[2])
	}
	return blocks
}

// section returns the guide's text from the heading that starts with
// from up to the next heading of the same level or above.
func section(t *testing.T, doc, from string) string {
	t.Helper()
	start := strings.Index(doc, "\n"+from)
	if start < 0 {
		t.Fatalf("%s has no heading %q", guide, from)
	}
	level := strings.Index(from, " ")
	rest := doc[start+1+len(from):]
	for _, marker := range []string{"\n## ", "\n### "}[:level-1] {
		if end := strings.Index(rest, marker); end >= 0 {
			rest = rest[:end]
		}
	}
	return rest
}

// writeSkeleton writes a program and its manifest into a new plugin folder,
// the program under the name run.command gives it, with the guide's
// escouade-bench.json beside them.
func writeSkeleton(t *testing.T, program, manifest, bench string) string {
	t.Helper()
	var m struct {
		Run struct {
			Command []string `json:"command"`
		} `json:"run"`
	}
	if err := json.Unmarshal([]byte(manifest), &m); err != nil || len(m.Run.Command) == 0 {
		t.Fatalf("the guide's manifest does not read: %v\n%s", err, manifest)
	}
	dir := t.TempDir()
	name := m.Run.Command[len(m.Run.Command)-1]
	files := map[string]string{"escouade-plugin.json": manifest, BenchFileName: bench, name: program}
	for file, text := range files {
		path := filepath.Join(dir, file)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestGuideSkeletonsPass copies each skeleton of the guide as printed and
// runs the bench over it with the guide's escouade-bench.json: every row
// passes. Python runs without PYTHONUNBUFFERED, as on a newcomer's machine,
// so a skeleton that forgot to flush fails here.
func TestGuideSkeletonsPass(t *testing.T) {
	data, err := os.ReadFile(guide)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	bench := codeBlocks(section(t, doc, "## 8. Testing it"))["json"][0]
	python := codeBlocks(section(t, doc, "## 6. In Python"))
	node := codeBlocks(section(t, doc, "### The same in Node"))
	golang := codeBlocks(section(t, doc, "## 5. In Go"))
	tests := []struct {
		name, tool       string
		program, maniest string
		build            func(t *testing.T, dir string)
	}{
		{"python", "python3", python["python"][0], python["json"][0], nil},
		{"node", "node", node["js"][0], node["json"][0], nil},
		{"go", "go", golang["go"][0], golang["json"][0], buildGoSkeleton},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := exec.LookPath(tt.tool); err != nil {
				t.Skipf("%s is not installed", tt.tool)
			}
			if tt.build != nil && testing.Short() {
				t.Skip("building the Go skeleton takes a while: not in -short")
			}
			t.Parallel()
			dir := writeSkeleton(t, tt.program, tt.maniest, bench)
			if tt.build != nil {
				tt.build(t, dir)
			}
			opts := Options{Env: withoutVar(os.Environ(), "PYTHONUNBUFFERED")}
			r := runBench(t, dir, opts)
			for _, res := range r.Results {
				if res.Status != Pass {
					logReport(t, r)
					t.Fatalf("row %s: %s, want pass", res.Check, res.Status)
				}
			}
			if _, played := r.Result(ScenarioPrefix + "greet"); !played {
				logReport(t, r)
				t.Errorf("the guide's scenarios were not played")
			}
		})
	}
}

// TestStrayPrintFailsStdoutOnly: the Python skeleton with one stray print
// fails the stdout row alone; no other row takes the blame.
func TestStrayPrintFailsStdoutOnly(t *testing.T) {
	needPython(t)
	data, err := os.ReadFile(guide)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	python := codeBlocks(section(t, doc, "## 6. In Python"))
	program := strings.Replace(python["python"][0], "def main():\n", "def main():\n    print(\"hello starting\")\n", 1)
	dir := writeSkeleton(t, program, python["json"][0], `{}`)
	r := runBench(t, dir, Options{Env: withoutVar(os.Environ(), "PYTHONUNBUFFERED")})
	if got := failures(r); len(got) != 1 || got[0] != CheckStdout {
		logReport(t, r)
		t.Fatalf("failed rows %v, want only stdout", got)
	}
	res, _ := r.Result(CheckStdout)
	if !strings.Contains(res.Got, "1 line that is not a JSON-RPC message: hello starting") {
		t.Errorf("stdout row says %q", res.Got)
	}
}

// TestUnflushedStdoutIsNamed: the Python skeleton without its flush fails
// initialize, and the row says the answer came only at exit: a buffered
// stdout, not silence.
func TestUnflushedStdoutIsNamed(t *testing.T) {
	needPython(t)
	t.Parallel()
	data, err := os.ReadFile(guide)
	if err != nil {
		t.Fatal(err)
	}
	python := codeBlocks(section(t, string(data), "## 6. In Python"))
	program := strings.Replace(python["python"][0], "    sys.stdout.flush()\n", "", 1)
	dir := writeSkeleton(t, program, python["json"][0], `{}`)
	// However short the delay, the answer is written at exit, when the
	// bench closes stdin: a slow start on a loaded machine changes nothing.
	opts := Options{Env: withoutVar(os.Environ(), "PYTHONUNBUFFERED"), Delays: map[string]time.Duration{methodInitialize: time.Second},
		StopGrace: 10 * time.Second} // it exits as soon as it read the end of stdin
	r := runBench(t, dir, opts)
	res, _ := r.Result(CheckInitialize)
	if res.Status != Fail || !strings.Contains(res.Got, "its stdout is buffered") || !strings.Contains(res.Fix, "flush=True") {
		logReport(t, r)
		t.Errorf("initialize row: %+v", res)
	}
}

// buildGoSkeleton builds the Go skeleton against this checkout, as the
// guide tells (a replace of the module), into bin/hello.
func buildGoSkeleton(t *testing.T, dir string) {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "bin", "hello")
	if err := os.Rename(src, filepath.Join(dir, "main.go")); err != nil {
		t.Fatal(err)
	}
	mod := "module example.com/hello\n\ngo 1.26\n\nrequire github.com/escouade-dev/escouade-plugin v0.0.0\n\n" +
		"replace github.com/escouade-dev/escouade-plugin => " + root + "\n"
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for file, text := range map[string]string{"go.mod": mod, "go.sum": string(sum)} {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "build", "-mod=mod", "-o", "bin/hello", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build of the guide's Go skeleton: %v\n%s", err, out)
	}
}

func withoutVar(env []string, name string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}
