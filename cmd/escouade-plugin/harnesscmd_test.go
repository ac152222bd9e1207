package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/internal/testutil"
)

// fakeACPDir is the scripted fake ACP agent's plugin folder.
const fakeACPDir = "../../tests/fixtures/plugins/fake-acp"

// waitLimit bounds a wait for a line that may never come, so the test fails
// with what it waited for rather than hang: it scales with the test
// binary's deadline (go test -timeout), leaving a tenth of what remains to
// report, and is an hour without one.
func waitLimit(t *testing.T) time.Duration {
	deadline, ok := t.Deadline()
	if !ok {
		return time.Hour
	}
	return max(time.Until(deadline)*9/10, time.Second)
}

// withFakeACP builds the fake agent, puts it in PATH and gives it script.
func withFakeACP(t *testing.T, script string) {
	t.Helper()
	dir := t.TempDir()
	if err := testutil.GoBuild(fakeACPDir, filepath.Join(dir, "fake-acp")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	abs, _ := filepath.Abs(filepath.Join(fakeACPDir, "scripts", script))
	t.Setenv("FAKE_ACP_SCRIPT", abs)
}

// TestHarnessJSONConsole plays a conversation of the fake agent through
// the JSON console: a prompt, a permission card answered by kind, a
// question answered, close.
func TestHarnessJSONConsole(t *testing.T) {
	withFakeACP(t, "conversation.json")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	home, cwd := t.TempDir(), t.TempDir()
	go func() {
		done <- cmdHarness(env{inR, outW, io.Discard}, []string{fakeACPDir, "--home", home, "--cwd", cwd, "--agent", "cli-1"})
		outW.Close()
	}()
	out := bufio.NewReader(outR)
	send := func(line string) { io.WriteString(inW, line+"\n") }
	send(`{"op":"prompt","text":"hello"}`)
	card := awaitItem(t, out, "permission")
	send(`{"op":"answer","request":"` + card["request"].(string) + `","kind":"allow_once"}`)
	send(`not json`)
	awaitOp(t, out, "error")
	turn := awaitItem(t, out, "turn")
	if turn["stopReason"] != "end_turn" {
		t.Errorf("turn %v", turn)
	}
	send(`{"op":"prompt","text":"a question"}`)
	q := awaitItem(t, out, "question")
	send(`{"op":"answerQuestion","request":"` + q["request"].(string) + `","answers":[["blue"]]}`)
	awaitItem(t, out, "answered")
	awaitItem(t, out, "turn")
	send(`{"op":"close"}`)
	awaitItem(t, out, "closed")
	go io.Copy(io.Discard, outR)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(home, "harness", "cli-1.jsonl"))
	if err != nil || !strings.Contains(string(b), `"type":"question"`) {
		t.Errorf("conversation not kept: %v", err)
	}
}

func TestHarnessUsage(t *testing.T) {
	tests := [][]string{{}, {"a", "b"}, {fakeACPDir, "--agent", "../x"}, {fakeACPDir, "--nope"}}
	for _, args := range tests {
		if err := cmdHarness(env{strings.NewReader(""), io.Discard, io.Discard}, args); !isUsage(err) {
			t.Errorf("%q: %v, want a usage error", args, err)
		}
	}
}

func awaitItem(t *testing.T, r *bufio.Reader, typ string) map[string]any {
	t.Helper()
	for {
		m := awaitOp(t, r, "item")
		item, _ := m["item"].(map[string]any)
		if item["type"] == typ {
			return item
		}
	}
}

func awaitOp(t *testing.T, r *bufio.Reader, op string) map[string]any {
	t.Helper()
	type read struct {
		line string
		err  error
	}
	limit := waitLimit(t)
	deadline := time.After(limit)
	for {
		got := make(chan read, 1)
		go func() { l, err := r.ReadString('\n'); got <- read{l, err} }()
		var rd read
		select {
		case rd = <-got:
		case <-deadline:
			t.Fatalf("no %q line in %s (the test's deadline nears)", op, limit)
		}
		if rd.err != nil {
			t.Fatalf("waiting for %q: %v", op, rd.err)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(rd.line), &m); err != nil {
			t.Fatalf("output line %q: %v", rd.line, err)
		}
		if m["op"] == op {
			return m
		}
	}
}

// TestHarnessEndOfInputLetsTheTurnEnd pipes one prompt and closes stdin: the
// turn still plays out (its waiting card cancelled, since nobody can answer
// it) before the session closes.
func TestHarnessEndOfInputLetsTheTurnEnd(t *testing.T) {
	withFakeACP(t, "conversation.json")
	var out strings.Builder
	err := cmdHarness(env{strings.NewReader(`{"op":"prompt","text":"hello"}` + "\n"), &out, io.Discard},
		[]string{fakeACPDir, "--home", t.TempDir(), "--cwd", t.TempDir(), "--json"})
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var line struct {
			Op   string
			Item struct{ Type, StopReason string }
		}
		if json.Unmarshal([]byte(l), &line) == nil && line.Op == "item" {
			types = append(types, line.Item.Type+":"+line.Item.StopReason)
		}
	}
	got := strings.Join(types, " ")
	for _, want := range []string{"permission:", "answered:", "turn:cancelled", "closed:"} {
		if !strings.Contains(got, want) {
			t.Errorf("items %q lack %q", got, want)
		}
	}
}

// A prompt refused because a turn runs is no turn to wait for: the end of
// input still closes the session.
func TestHarnessEndOfInputAfterARefusedPrompt(t *testing.T) {
	withFakeACP(t, "conversation.json")
	var out strings.Builder
	in := `{"op":"prompt","text":"one"}` + "\n" + `{"op":"prompt","text":"two"}` + "\n"
	if err := cmdHarness(env{strings.NewReader(in), &out, io.Discard},
		[]string{fakeACPDir, "--home", t.TempDir(), "--cwd", t.TempDir(), "--json"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"type":"closed"`) {
		t.Errorf("no closed item:\n%s", out.String())
	}
}
