package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeWithCaps writes a copy of the fake agent's plugin whose harness
// entry has the caps given (JSON), and gives its folder.
func fakeWithCaps(t *testing.T, caps string) string {
	t.Helper()
	return fakeWithEntry(t, func(h map[string]any) {
		var c any
		if err := json.Unmarshal([]byte(caps), &c); err != nil {
			t.Fatal(err)
		}
		h["caps"] = c
	})
}

// fakeWithEntry writes a copy of the fake agent's plugin whose harness
// entry change alters, and gives its folder.
func fakeWithEntry(t *testing.T, change func(h map[string]any)) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fakeACPDir, "escouade-plugin.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	h := m["contributes"].(map[string]any)["harnesses"].([]any)[0].(map[string]any)
	change(h)
	out, _ := json.Marshal(m)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "escouade-plugin.json"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// recordedMethods reads what the fake agent received (FAKE_ACP_RECORD):
// each method with its params.
func recordedMethods(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal([]byte(l), &m) == nil && m.Method != "" {
			out = append(out, m.Method+" "+string(m.Params))
		}
	}
	return out
}

// TestHarnessRefusesAModeCapsDoesNotList: "what is not said, it does
// not do". A mode outside caps.modes, and readOnly without caps.readOnly,
// are refused at start (exit 2, naming caps.modes and what it lists) and
// as a console op (an error line); the agent never gets them.
func TestHarnessRefusesAModeCapsDoesNotList(t *testing.T) {
	withFakeACP(t, "conversation.json")
	dir := fakeWithCaps(t, `{"modes":["default","acceptEdits"]}`)
	for _, mode := range []string{"bypassPermissions", "readOnly", "plan"} {
		code, out, errOut := runCLI(t, "", "harness", dir, "--home", t.TempDir(), "--cwd", t.TempDir(), "--json", "--mode", mode)
		if code != 2 || out != "" {
			t.Errorf("--mode %s: exit %d, stdout %q", mode, code, out)
		}
		if !strings.Contains(errOut, "caps.modes") || !strings.Contains(errOut, "default, acceptEdits") || !strings.Contains(errOut, mode) {
			t.Errorf("--mode %s: the refusal does not name caps.modes and its modes: %q", mode, errOut)
		}
	}
	code, _, errOut := runCLI(t, "", "harness", dir, "--home", t.TempDir(), "--cwd", t.TempDir(), "--json", "--mode", "readOnly")
	if code != 2 || !strings.Contains(errOut, "caps.readOnly is not true") {
		t.Errorf("readOnly: exit %d, %q", code, errOut)
	}

	record := filepath.Join(t.TempDir(), "record.jsonl")
	t.Setenv("FAKE_ACP_RECORD", record)
	code, out, errOut := runCLI(t, `{"op":"mode","mode":"bypassPermissions"}`+"\n"+`{"op":"mode","mode":"readOnly"}`+"\n"+`{"op":"mode","mode":"acceptEdits"}`+"\n",
		"harness", dir, "--home", t.TempDir(), "--cwd", t.TempDir(), "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	errs := byOp(lines(t, out), "error")
	if len(errs) != 2 || !strings.Contains(errs[0]["message"].(string), `mode "bypassPermissions"`) ||
		!strings.Contains(errs[1]["message"].(string), "caps.readOnly") {
		t.Errorf("refusal lines %v", errs)
	}
	// The start's own mode (default's "ask") is sent too when the session
	// opens before the first line is read, and not when the line comes
	// first: which comes first is the scheduler's. What is asserted is
	// that no refused mode reached the agent.
	var modes []string
	for _, m := range recordedMethods(t, record) {
		if strings.HasPrefix(m, "session/set_mode") && !strings.Contains(m, `"modeId":"ask"`) {
			modes = append(modes, m)
		}
	}
	if len(modes) != 1 || !strings.Contains(modes[0], `"edits"`) {
		t.Errorf("the agent got these modes: %q (want only acceptEdits's besides the start's)", modes)
	}
}

// TestHarnessOffersReadOnlyWithCapsReadOnly: with caps.readOnly true the
// start in readOnly sends acp.readOnlyMode before the first prompt.
func TestHarnessOffersReadOnlyWithCapsReadOnly(t *testing.T) {
	withFakeACP(t, "conversation.json")
	record := filepath.Join(t.TempDir(), "record.jsonl")
	t.Setenv("FAKE_ACP_RECORD", record)
	dir := fakeWithCaps(t, `{"modes":["default"],"readOnly":true}`)
	reviewItems(t, `{"op":"prompt","text":"hi"}`+"\n", dir, "--home", t.TempDir(), "--cwd", t.TempDir(), "--json", "--mode", "readOnly")
	var order []string
	for _, m := range recordedMethods(t, record) {
		if strings.HasPrefix(m, "session/set_mode") || strings.HasPrefix(m, "session/prompt") {
			order = append(order, strings.Fields(m)[0])
		}
	}
	if len(order) < 2 || order[0] != "session/set_mode" || order[1] != "session/prompt" {
		t.Errorf("what the agent got first: %q", order)
	}
}
