//go:build linux

package hardening

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

var (
	fakeACPOnce sync.Once
	fakeACPErr  error
)

// fakeACPPath builds the scripted fake ACP agent once, beside the command.
func fakeACPPath(t *testing.T) string {
	t.Helper()
	fakeACPOnce.Do(func() {
		cmd := exec.Command("go", "build", "-o", filepath.Join(bins, "fake-acp"), "../fixtures/plugins/fake-acp")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			fakeACPErr = err
			t.Logf("%s", out)
		}
	})
	if fakeACPErr != nil {
		t.Fatal(fakeACPErr)
	}
	return bins
}

// fakeHarness writes the fake agent's plugin folder with its harness entry
// changed, and gives it.
func fakeHarness(t *testing.T, change func(h map[string]any)) string {
	t.Helper()
	b, err := os.ReadFile("../fixtures/plugins/fake-acp/escouade-plugin.json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	change(m["contributes"].(map[string]any)["harnesses"].([]any)[0].(map[string]any))
	dir := t.TempDir()
	out, _ := json.Marshal(m)
	writeFile(t, filepath.Join(dir, "escouade-plugin.json"), out)
	return dir
}

// harnessCLI runs the built escouade-plugin harness with stdin, the fake
// agent in PATH playing script (JSON), and gives stdout, stderr, exit code.
func harnessCLI(t *testing.T, stdin, script string, args ...string) (string, string, int) {
	t.Helper()
	scriptPath := filepath.Join(t.TempDir(), "script.json")
	writeFile(t, scriptPath, []byte(script))
	ctx, cancel := context.WithTimeout(context.Background(), waitLong(t))
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bins, "escouade-plugin"), append([]string{"harness"}, args...)...)
	cmd.Env = []string{"PATH=" + fakeACPPath(t), "FAKE_ACP_SCRIPT=" + scriptPath, "HOME=" + t.TempDir()}
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("harness %v did not end: stdout %s", args, tail(out.String(), 2000))
	}
	code := cmd.ProcessState.ExitCode()
	if err != nil && code < 0 {
		t.Fatalf("harness %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// A hostile Cursor agent: cursor/* messages of the wrong shape, a
// blocking request sent as a notification, an unknown method, thousands
// of questions; the session answers each, keeps going and ends its turn.
func TestHarnessHostileCursorMessages(t *testing.T) {
	dir := fakeHarness(t, func(h map[string]any) {
		h["acp"].(map[string]any)["extensions"] = []string{"cursor"}
		h["acp"].(map[string]any)["questionsInText"] = false
	})
	var many []string
	for i := range 3000 {
		many = append(many, `{"id":"q`+strings.Repeat("x", i%7)+`","prompt":"p","options":[{"id":"a","label":"A"},{"id":"b","label":"A"}]}`)
	}
	steps := []string{
		`{"request":{"method":"cursor/ask_question","params":[1,2]}}`,
		`{"request":{"method":"cursor/ask_question","params":{"questions":"none"}}}`,
		`{"notify":{"method":"cursor/ask_question","params":{"questions":[{"id":"q","prompt":"p","options":[]}]}}}`,
		`{"request":{"method":"cursor/create_plan","params":{"plan":7}}}`,
		`{"notify":{"method":"cursor/update_todos","params":{"todos":[{"id":1}],"merge":"yes"}}}`,
		`{"request":{"method":"cursor/task","params":null}}`,
		`{"request":{"method":"cursor/../../etc","params":{}}}`,
		`{"line":"{\"jsonrpc\":\"2.0\",\"id\":{\"x\":1},\"method\":\"cursor/ask_question\",\"params\":{}}"}`,
		`{"request":{"method":"cursor/ask_question","params":{"toolCallId":"t","questions":[` + strings.Join(many, ",") + `]}}}`,
		`{"text":"still here"}`,
	}
	script := `{"scenes":[{"steps":[` + strings.Join(steps, ",") + `]}]}`
	out, errText, code := harnessCLI(t, `{"op":"prompt","text":"go"}`+"\n", script, dir, "--home", t.TempDir(), "--cwd", t.TempDir(), "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errText)
	}
	var turns, questions int
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m struct {
			Item struct {
				Type       string `json:"type"`
				StopReason string `json:"stopReason"`
			} `json:"item"`
		}
		json.Unmarshal([]byte(l), &m)
		switch m.Item.Type {
		case "turn":
			turns++
		case "question":
			questions++
		}
	}
	if turns != 1 || questions != 1 {
		t.Errorf("%d turns and %d question cards, want 1 and 1 (the well-formed one):\n%s", turns, questions, tail(out, 3000))
	}
	if !strings.Contains(out, "cursor/ask_question is a request: it needs an id") || !strings.Contains(out, "method not found: cursor/../../etc") {
		t.Errorf("the refusals are not said:\n%s", tail(out, 3000))
	}
}

// A FIFO given as a prompt's file is refused at once, not opened to wait
// for a writer: the console goes on and the next prompt is answered.
func TestHarnessPromptFileThatIsAFIFO(t *testing.T) {
	cwd := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(cwd, "pipe.png"), 0o644); err != nil {
		t.Skip("no FIFO here:", err)
	}
	dir := fakeHarness(t, func(h map[string]any) { h["caps"] = map[string]any{"images": true} })
	input := `{"op":"prompt","text":"see","files":["pipe.png"]}` + "\n" + `{"op":"prompt","text":"after"}` + "\n"
	out, errText, code := harnessCLI(t, input, `{"scenes":[{"steps":[{"echoPrompt":true}]}]}`, dir, "--home", t.TempDir(), "--cwd", cwd, "--json")
	if code != 0 || !strings.Contains(out, "the host reads only regular files") || !strings.Contains(out, `"text":"after"`) {
		t.Errorf("exit %d, stderr %q, stdout:\n%s", code, errText, tail(out, 2000))
	}
}

// The built command refuses a mode caps.modes does not list, exit 2.
func TestHarnessModeOutsideCapsThroughTheCommand(t *testing.T) {
	dir := fakeHarness(t, func(h map[string]any) { h["caps"] = map[string]any{"modes": []string{"default"}} })
	_, errText, code := harnessCLI(t, "", `{}`, dir, "--home", t.TempDir(), "--cwd", t.TempDir(), "--mode", "bypassPermissions")
	if code != 2 || !strings.Contains(errText, "caps.modes lists default") {
		t.Errorf("exit %d, stderr %q", code, errText)
	}
}
