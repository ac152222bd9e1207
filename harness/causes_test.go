package harness

import (
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/acp"
)

// TestClaudeCodeAsRootIsExplained: Claude Code started as root without
// IS_SANDBOX=1 writes its refusal on stderr and exits 1; the person is told
// what to do, once, before the session closes.
func TestClaudeCodeAsRootIsExplained(t *testing.T) {
	w := newWorld(t)
	script := reviewScript(t, `{"scenes":[{"steps":[
		{"stderr":"--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons"},
		{"crash":1}
	]}]}`)
	r := start(t, script, Options{Cwd: w.dir})
	r.untilType(acp.TypeSession)
	r.must(r.s.Prompt("hello"))
	notices := texts(r.untilType(acp.TypeClosed), acp.TypeNotice)
	var root []string
	for _, n := range notices {
		if strings.Contains(n, "IS_SANDBOX=1") {
			root = append(root, n)
		}
	}
	diff(t, "root notices", []string{`Fake refuses to run as root (the administrator, uid 0) unless IS_SANDBOX=1 is in its environment: run the app as another user, or, where the machine is itself a sandbox (a container, a VM), add "IS_SANDBOX": "1" to the "env" of its harness's acp object`}, root)
}

// TestCodexWithoutBubblewrapIsExplained: Codex's shell fails when bwrap is
// missing (its words, from its linux-sandbox launcher); the failed tool is
// followed by one notice that says what to install, however many fail.
func TestCodexWithoutBubblewrapIsExplained(t *testing.T) {
	w := newWorld(t)
	failed := `{"sessionUpdate":"tool_call_update","toolCallId":"%s","status":"failed","rawOutput":{"exit_code":101,"stdout":"","stderr":"thread 'main' panicked at linux-sandbox/src/launcher.rs:43:13:\nbubblewrap is unavailable: no system bwrap was found on PATH and no bundled codex-resources/bwrap binary was found next to the Codex executable\n"}}`
	script := reviewScript(t, `{"scenes":[{"steps":[
		{"update":{"sessionUpdate":"tool_call","toolCallId":"call_1","title":"Run ls","kind":"execute","status":"in_progress","rawInput":{"command":["bash","-lc","ls"]}}},
		{"update":`+strings.Replace(failed, "%s", "call_1", 1)+`},
		{"update":{"sessionUpdate":"tool_call","toolCallId":"call_2","title":"Run pwd","kind":"execute","status":"in_progress"}},
		{"update":`+strings.Replace(failed, "%s", "call_2", 1)+`}
	]}]}`)
	r := start(t, script, Options{Cwd: w.dir})
	r.untilType(acp.TypeSession)
	r.must(r.s.Prompt("list"))
	items := r.untilType(acp.TypeTurn)
	notices := texts(items, acp.TypeNotice)
	diff(t, "notices", []string{"Fake runs its shell commands in a bubblewrap sandbox, and bubblewrap (bwrap) is not installed: install the bubblewrap package (Debian, Ubuntu: sudo apt install bubblewrap; Fedora: sudo dnf install bubblewrap; Arch: sudo pacman -S bubblewrap), then try again"}, notices)
	var order []string
	for _, it := range items {
		if it.Type == acp.TypeToolDone || it.Type == acp.TypeNotice {
			order = append(order, it.Type+" "+it.ID)
		}
	}
	diff(t, "the notice follows the first failure", []string{"toolDone call_1", "notice ", "toolDone call_2"}, order)
}

// TestCausesNeedAllTheirWords: a word alone is no cause; a successful tool
// that prints the words is none either.
func TestCausesNeedAllTheirWords(t *testing.T) {
	for _, text := range []string{"bwrap", "could not find the file", "running as root is fine", "bubblewrap installed",
		"Codex could not find bubblewrap on PATH. Install bubblewrap with your OS package manager. Codex will use the bundled bubblewrap in the meantime.",
		"Codex could not find system bubblewrap at /usr/bin/bwrap"} {
		for _, c := range causes {
			if c.matches(text) {
				t.Errorf("%q is taken for %s", text, c.key)
			}
		}
	}
	s := &Session{}
	s.noticeCauses(acp.Item{Type: acp.TypeToolDone, Status: "completed", Output: []byte(`"bubblewrap is unavailable"`)})
	diff(t, "noticed", map[string]bool(nil), s.causesNoticed)
}

// TestClaudeAdapterRootRefusalIsExplained: Claude Code's ACP adapter run as
// root refuses the bypass mode with its own words (src/acp-agent.ts,
// "bypassPermissions is not available when running as root"); the failed
// session/new is followed by the same notice.
func TestClaudeAdapterRootRefusalIsExplained(t *testing.T) {
	w := newWorld(t)
	script := reviewScript(t, `{"sessionError":{"code":-32603,"message":"Invalid permissions.defaultMode: bypassPermissions is not available when running as root."}}`)
	r := start(t, script, Options{Cwd: w.dir})
	notices := texts(r.untilType(acp.TypeClosed), acp.TypeNotice)
	var root int
	for _, n := range notices {
		if strings.HasPrefix(n, "Fake refuses to run as root") {
			root++
		}
	}
	if root != 1 {
		t.Errorf("%d root notices in %q", root, notices)
	}
}
