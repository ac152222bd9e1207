package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRegressPluginProcess is a plugin when REVIEW_PLUGIN is set (the test
// binary run by the host): it reads stdin one line at a time, notes each
// method in REVIEW_LOG in the order received, answers initialize and
// shutdown, never answers review/never, and echoes the rest.
func TestRegressPluginProcess(t *testing.T) {
	if os.Getenv("REVIEW_PLUGIN") == "" {
		return
	}
	log, err := os.OpenFile(os.Getenv("REVIEW_LOG"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		os.Exit(9)
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 16<<20)
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil || m.Method == "" {
			continue
		}
		fmt.Fprintf(log, "%s %s\n", m.Method, m.Params)
		if len(m.ID) == 0 || m.Method == "review/never" {
			continue
		}
		result := m.Params
		switch m.Method {
		case "initialize":
			result = json.RawMessage(`{"protocolVersion":1}`)
		case "shutdown":
			result = json.RawMessage(`null`)
		}
		if len(result) == 0 {
			result = json.RawMessage(`null`)
		}
		fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", m.ID, result)
		if m.Method == "shutdown" {
			os.Exit(0)
		}
	}
	os.Exit(0)
}

// reviewPluginDir writes a plugin folder whose program is the plugin above;
// it returns the folder and the file where the plugin notes what it got.
func reviewPluginDir(t *testing.T) (dir, log string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	log = filepath.Join(t.TempDir(), "received.log")
	t.Setenv("REVIEW_PLUGIN", "1")
	t.Setenv("REVIEW_LOG", log)
	m := map[string]any{
		"id": "dev.test.review", "name": "Review", "version": "1.0.0",
		"escouade":   map[string]string{"api": "1"},
		"run":        map[string]any{"command": []string{"env", "REVIEW_PLUGIN=1", "REVIEW_LOG=" + log, exe, "-test.run=^TestRegressPluginProcess$"}},
		"activation": []string{"onCall"},
	}
	data, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(dir, "escouade-plugin.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, log
}

func receivedMethods(t *testing.T, log string) []string {
	t.Helper()
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

// docs/CLI.md#run: messages reach the plugin in the order of the console's lines;
// an attach must not be overtaken by the call after it.
func TestRegressConsoleKeepsTheOrderOfAttachesAndCalls(t *testing.T) {
	dir, log := reviewPluginDir(t)
	var in, want []string
	for i := range 30 {
		in = append(in,
			fmt.Sprintf(`{"op":"attach","agent":"a%d","params":{}}`, i),
			fmt.Sprintf(`{"op":"call","id":"c%d","method":"review/echo","params":[%d]}`, i, i))
		want = append(want, fmt.Sprintf(`agent/attach {"agent":"a%d"}`, i), fmt.Sprintf("review/echo [%d]", i))
	}
	code, _, errOut := runCLI(t, strings.Join(in, "\n")+"\n", "run", dir, "--home", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got := receivedMethods(t, log)
	if len(got) < 2 {
		t.Fatalf("received %q", got)
	}
	got = got[1:] // initialize
	if len(got) > 0 && strings.HasPrefix(got[len(got)-1], "shutdown") {
		got = got[:len(got)-1]
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order received by the plugin (-want +got)\n%s", diff)
	}
}

// docs/CLI.md#run: EOF or close shuts the host down as docs/protocol.md#9-stopping-closing-and-user-changes says (shutdown,
// one second at most): a call under way must not hold the exit for its
// whole delay, and ends with a default answer other than a timeout.
func TestRegressCloseDoesNotWaitForCallsUnderWay(t *testing.T) {
	dir, _ := reviewPluginDir(t)
	in := `{"op":"call","id":"c1","method":"review/never"}` + "\n" + `{"op":"close"}` + "\n"
	code, out, errOut := runCLI(t, in, "run", dir, "--home", t.TempDir(), "--delay", "review/never=3s")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	answers := byOp(lines(t, out), "answer")
	if len(answers) != 1 || answers[0]["default"] == "timeout" {
		t.Errorf("answers = %v; want c1 ended by the close (stopped), not after its 3 s delay", answers)
	}
}

// docs/CLI.md#ops: "A malformed command line gets {"op":"error",…} and the host
// keeps going" — a line longer than the console reads is one of them.
func TestRegressConsoleKeepsGoingAfterAnOverlongLine(t *testing.T) {
	t.Setenv("FAKE_PLUGIN", "1")
	dir := pluginDir(t, "1.0.0")
	in := `{"op":"call","id":"big","method":"test/echo","params":"` + strings.Repeat("x", 17<<20) + `"}` + "\n" +
		`{"op":"state"}` + "\n"
	code, out, errOut := runCLI(t, in, "run", dir, "--home", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got := lines(t, out)
	if len(byOp(got, "error")) != 1 || len(byOp(got, "state")) != 1 {
		t.Errorf("output = %v; want one error line for the long line, then the state", got)
	}
}

// docs/CLI.md#ops: restart, enable and disable are "answered by a state line".
func TestRegressRestartOfADisabledPluginIsAnsweredByAState(t *testing.T) {
	t.Setenv("FAKE_PLUGIN", "1")
	dir := pluginDir(t, "1.0.0")
	in := `{"op":"disable"}` + "\n" + `{"op":"restart"}` + "\n"
	code, out, errOut := runCLI(t, in, "run", dir, "--home", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var states []string
	for _, s := range byOp(lines(t, out), "state") {
		states = append(states, fmt.Sprint(s["state"]))
	}
	if diff := cmp.Diff([]string{"disabled", "disabled"}, states); diff != "" {
		t.Errorf("states (-want +got)\n%s\noutput: %s", diff, out)
	}
}

// Bad input of every kind on the console: each gets one error line, the
// host keeps going and still answers.
