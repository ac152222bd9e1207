package main

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/internal/testutil"
)

// reviewHarnessScript gives the fake agent an inline script.
func reviewHarnessScript(t *testing.T, text string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FAKE_ACP_SCRIPT", path)
}

// reviewItems runs "harness DIR --json" on piped input to its end and
// gives the items written.
func reviewItems(t *testing.T, stdin string, args ...string) []map[string]any {
	t.Helper()
	code, out, errOut := runCLI(t, stdin, append([]string{"harness"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var items []map[string]any
	for _, l := range byOp(lines(t, out), "item") {
		items = append(items, l["item"].(map[string]any))
	}
	return items
}

func itemsOf(items []map[string]any, typ string) []map[string]any {
	var out []map[string]any
	for _, it := range items {
		if it["type"] == typ {
			out = append(out, it)
		}
	}
	return out
}

func itemTexts(items []map[string]any, typ string) []string {
	var out []string
	for _, it := range itemsOf(items, typ) {
		s, _ := it["text"].(string)
		out = append(out, s)
	}
	return out
}

// TestReviewHarnessVersionNotice: an agent of another ACP version is ended
// with the notice of docs/harness.md#the-session, and the command exits 0.
func TestReviewHarnessVersionNotice(t *testing.T) {
	withFakeACP(t, "version-2.json")
	items := reviewItems(t, `{"op":"prompt","text":"hi"}`+"\n", fakeACPDir, "--home", t.TempDir(), "--cwd", t.TempDir(), "--json")
	notices := itemTexts(items, "notice")
	if !contains(notices, "it speaks ACP version 2; this client speaks version 1") {
		t.Errorf("notices %q", notices)
	}
	if len(itemsOf(items, "closed")) != 1 {
		t.Errorf("items %v", items)
	}
}

// TestReviewHarnessTestedNotice: a version outside "tested" is a notice
// in the words of docs/harness.md#the-harness-entry, and the agent still runs.
func TestReviewHarnessTestedNotice(t *testing.T) {
	withFakeACP(t, "conversation.json")
	b, err := os.ReadFile(filepath.Join(fakeACPDir, "escouade-plugin.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	text := strings.Replace(string(b), `"tested": { "oldest": "1.0.0", "newest": "1.0.0" }`, `"tested": { "oldest": "0.9.0", "newest": "0.9.0" }`, 1)
	if err := os.WriteFile(filepath.Join(dir, "escouade-plugin.json"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	items := reviewItems(t, `{"op":"prompt","text":"hi"}`+"\n", dir, "--home", t.TempDir(), "--cwd", t.TempDir(), "--json")
	notices := itemTexts(items, "notice")
	if !contains(notices, "Fake ACP 1.0.0 has not been tried with this plugin (tried: 0.9.0)") {
		t.Errorf("notices %q", notices)
	}
	if len(itemsOf(items, "session")) != 1 {
		t.Errorf("no session: %v", items)
	}
}

// TestReviewHarnessReattach: a second run on the same home re-attaches
// with session/load, its replay marked history; an agent that can neither
// load nor resume gets a new session with the notice of docs/harness.md#the-session.
func TestReviewHarnessReattach(t *testing.T) {
	t.Run("load", func(t *testing.T) {
		withFakeACP(t, "load.json")
		home, cwd := t.TempDir(), t.TempDir()
		args := []string{fakeACPDir, "--home", home, "--cwd", cwd, "--json", "--agent", "a1"}
		first := reviewItems(t, `{"op":"prompt","text":"one"}`+"\n", args...)
		if len(itemsOf(first, "turn")) != 1 {
			t.Fatalf("first run: %v", first)
		}
		second := reviewItems(t, `{"op":"prompt","text":"two"}`+"\n", args...)
		sessions := itemsOf(second, "session")
		last := sessions[len(sessions)-1]
		if last["attach"] != "load" || last["history"] == true {
			t.Errorf("session of the second run: %v", last)
		}
		var replay []string
		for _, it := range second {
			if it["history"] == true && (it["type"] == "text" || it["type"] == "user") {
				replay = append(replay, it["text"].(string))
			}
		}
		if !contains(replay, "an old answer") || !contains(replay, "one") {
			t.Errorf("history texts %q", replay)
		}
	})
	t.Run("new", func(t *testing.T) {
		withFakeACP(t, "errors.json")
		home, cwd := t.TempDir(), t.TempDir()
		args := []string{fakeACPDir, "--home", home, "--cwd", cwd, "--json"}
		reviewItems(t, `{"op":"prompt","text":"one"}`+"\n", args...)
		second := reviewItems(t, `{"op":"prompt","text":"two"}`+"\n", args...)
		if !contains(itemTexts(second, "notice"), "new session (context cleared)") {
			t.Errorf("second run: %v", second)
		}
	})
}

// TestReviewHarnessAuthNotice: session/new answering an auth error ends
// with a notice telling to log in with the agent's own command.
func TestReviewHarnessAuthNotice(t *testing.T) {
	withFakeACP(t, "auth.json")
	items := reviewItems(t, `{"op":"prompt","text":"hi"}`+"\n", fakeACPDir, "--home", t.TempDir(), "--cwd", t.TempDir(), "--json")
	notices := strings.Join(itemTexts(items, "notice"), "\n")
	if !strings.Contains(notices, "log in") || len(itemsOf(items, "closed")) != 1 {
		t.Errorf("items %v", items)
	}
}

// TestReviewHarnessBadAgentLines: garbage, unknown kinds and a 20 MiB line
// never break the session; the next prompt is answered.
func TestReviewHarnessBadAgentLines(t *testing.T) {
	withFakeACP(t, "")
	reviewHarnessScript(t, `{"scenes":[{"steps":[
		{"line":"garbage"},{"update":{"sessionUpdate":"telepathy"}},{"bigLine":20971520},{"text":"after"}
	]},{"steps":[{"echoPrompt":true}]}]}`)
	in := `{"op":"prompt","text":"one"}` + "\n"
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- cmdHarness(env{inR, outW, io.Discard}, []string{fakeACPDir, "--home", t.TempDir(), "--cwd", t.TempDir(), "--json"})
		outW.Close()
	}()
	out := bufio.NewReaderSize(outR, 1<<20)
	io.WriteString(inW, in)
	if turn := awaitItem(t, out, "turn"); turn["stopReason"] != "end_turn" {
		t.Errorf("turn %v", turn)
	}
	io.WriteString(inW, `{"op":"prompt","text":"two"}`+"\n")
	if text := awaitItem(t, out, "text"); text["text"] != "two" {
		t.Errorf("text %v", text)
	}
	awaitItem(t, out, "turn")
	inW.Close()
	awaitItem(t, out, "closed")
	go io.Copy(io.Discard, outR)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestReviewHarnessExampleAgent runs the ACP Go SDK's example agent through
// the command: its card has a request id, is answered by option id, the
// turn ends end_turn; a second run clears the context.
func TestReviewHarnessExampleAgent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the SDK's example agent")
	}
	bin := t.TempDir()
	if err := testutil.GoBuild("github.com/coder/acp-go-sdk/example/agent", filepath.Join(bin, "example-agent")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	plugin := t.TempDir()
	manifestText := `{"id":"dev.example.acp-go","name":"ACP Go example","version":"1.0.0","escouade":{"api":"1"},
		"contributes":{"harnesses":[{"id":"example","name":"Example","locate":{"names":["example-agent"]},"acp":{}}]}}`
	if err := os.WriteFile(filepath.Join(plugin, "escouade-plugin.json"), []byte(manifestText), 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	args := []string{"harness", plugin, "--home", home, "--cwd", t.TempDir(), "--json"}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(args, inR, outW, io.Discard)
		outW.Close()
	}()
	out := bufio.NewReader(outR)
	io.WriteString(inW, `{"op":"prompt","text":"hello"}`+"\n")
	card := awaitItem(t, out, "permission")
	if card["request"] == nil || card["name"] != "Edit" {
		t.Errorf("card %v", card)
	}
	io.WriteString(inW, `{"op":"answer","request":"`+card["request"].(string)+`","option":"allow"}`+"\n")
	if answered := awaitItem(t, out, "answered"); answered["option"] != "allow" || answered["kind"] != "allow_once" {
		t.Errorf("answered %v", answered)
	}
	if turn := awaitItem(t, out, "turn"); turn["stopReason"] != "end_turn" {
		t.Errorf("turn %v", turn)
	}
	io.WriteString(inW, `{"op":"close"}`+"\n")
	awaitItem(t, out, "closed")
	go io.Copy(io.Discard, outR)
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
	code, stdout, _ := runCLI(t, `{"op":"prompt","text":"again"}`+"\n", args...)
	if code != 0 || !strings.Contains(stdout, `"text":"new session (context cleared)"`) {
		t.Errorf("second run: exit %d\n%s", code, stdout)
	}
}
