package web

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/escouade-dev/escouade-plugin/internal/testutil"
)

// fakeACPDir is the project's scripted ACP agent, a described harness.
const fakeACPDir = "../tests/fixtures/plugins/fake-acp"

const fakeACPHarness = "plugin:dev.escouade.fake-acp:fake-acp"

var (
	fakeACPOnce sync.Once
	fakeACPBin  string // the folder holding the built fake-acp
	fakeACPErr  error
)

// fakeACPPath builds the fake agent once, beside the view's fixture.
func fakeACPPath(t *testing.T) string {
	t.Helper()
	fakeACPOnce.Do(func() {
		fakeACPBin = filepath.Join(filepath.Dir(fixtureBin), "acp-bin")
		fakeACPErr = testutil.GoBuild(fakeACPDir, filepath.Join(fakeACPBin, "fake-acp"))
	})
	if fakeACPErr != nil {
		t.Fatalf("building the fake agent: %v", fakeACPErr)
	}
	return fakeACPBin
}

// agentView starts a view over a home where the fake agent's plugin is
// installed; the agent plays script.
func agentView(t *testing.T, script string) (*view, string) {
	t.Helper()
	home := t.TempDir()
	installed(t, home, fakeACPDir)
	env := []string{"PATH=" + fakeACPPath(t) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"FAKE_ACP_SCRIPT=" + script, "HOME=" + t.TempDir()}
	v := startView(t, home, func(o *Options) { o.Host.Env = env })
	return v, home
}

// agentScript writes the fake agent's script with the agent's folder in
// it, and that folder with the file the script edits.
func agentScript(t *testing.T, text string) (script, dir string) {
	t.Helper()
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("old line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script = filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(script, []byte(strings.ReplaceAll(text, "@DIR@", dir)), 0o644); err != nil {
		t.Fatal(err)
	}
	return script, dir
}

// conversationScript is a turn with streamed text (markup and a
// bidirectional control in it, to be shown as text), a tool call and a
// permission card for an edit; a turn that waits for its cancel; and a
// question asked in text.
const conversationScript = `{
  "scenes": [
    { "steps": [
        { "text": "Hello, " },
        { "text": "world <b>bold</b><img src=x onerror=alert(1)> \u202eevil" },
        { "update": { "sessionUpdate": "tool_call", "toolCallId": "call-1", "title": "Edit notes.txt", "kind": "edit", "status": "pending",
                      "rawInput": { "path": "@DIR@/notes.txt", "old_string": "old", "new_string": "new" } } },
        { "permission": { "toolCall": { "toolCallId": "call-1" }, "options": [
            { "optionId": "yes", "name": "Yes, edit it", "kind": "allow_once" },
            { "optionId": "always", "name": "Always", "kind": "allow_always" },
            { "optionId": "no", "name": "No", "kind": "reject_once" }] } },
        { "update": { "sessionUpdate": "tool_call_update", "toolCallId": "call-1", "status": "completed" } },
        { "text": "Edited." }
      ],
      "usage": { "inputTokens": 100, "outputTokens": 20, "totalTokens": 120 } },
    { "steps": [{ "update": { "sessionUpdate": "usage_update", "used": 5000, "size": 200000 } }, { "text": "working on it" }, { "waitCancel": true }], "onCancel": "honour" },
    { "steps": [
        { "text": "Which colour?\n<escouade_question>{\"questions\":[{\"question\":\"Colour?\",\"options\":[\"red\",\"blue\"],\"multiSelect\":false}]}</escouade_question>" }
      ] },
    { "steps": [{ "echoPrompt": true }] }
  ]
}`

// inLog waits until the conversation shows text.
func inLog(text string) chromedp.Action[chromedp.Void] {
	return waitJS(`(want) => document.querySelector('[role=log]').innerText.includes(want)`, text)
}

// startAgent opens the Agents page, picks the harness, the folder, a
// mode and a model, and presses New agent: the agent's page opens.
func startAgent(v *view, harness, dir, mode, model string) chromedp.Action[chromedp.Void] {
	steps := []chromedp.Action[chromedp.Void]{
		chromedp.Navigate(v.url()),
		click("link", "Agents"),
		waitText("New agent"),
		choose("Harness", harness),
		fill("Folder", dir),
	}
	if mode != "" {
		steps = append(steps, choose("Mode", mode))
	}
	if model != "" {
		steps = append(steps, choose("Model", model))
	}
	// The agent's page is ready once its conversation shows the session
	// the agent opened: its stream and its script are there.
	return chromedp.Steps(append(steps, click("button", "New agent"),
		waitJS(`() => location.pathname.startsWith("/agents/agent-") && document.querySelector('[role=log]')?.innerText.includes("session ")`))...)
}

func prompt(text string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(fill("Prompt", text), click("button", "Send"))
}

// The whole conversation with the fake agent in the page: started from the
// Harness menu, its text streamed and escaped, a permission card with the
// diff of its edit answered (once, even from a second tab; never from
// another origin), the turn's end with its tokens, a cancelled turn, a
// question card; then its plugin disabled: the agent is « Harness absent »
// with its conversation, and comes back with it.
func TestBrowserAgentConversation(t *testing.T) {
	ctx := browser(t)
	script, dir := agentScript(t, conversationScript)
	v, _ := agentView(t, script)

	err := chromedp.Do(ctx,
		startAgent(v, fakeACPHarness, dir, "default", "fake-large"),
		waitText("Idle"),
		prompt("look around"),
		inLog("You: look around"),
		inLog("Hello, world <b>bold</b>"),
		waitJS(`() => document.querySelector('[role=group][aria-label^="Permission"]') !== null`),
	)
	if err != nil {
		t.Fatal(err)
	}
	card := "Permission: Edit · Edit notes.txt"
	err = chromedp.Do(ctx,
		waitVisible("group", card),
		waitText("-old line"),
		waitText("+new line"),
		waitText("Waiting for you"),
	)
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "agent-permission")
	log := bodyText(t, ctx)
	if !strings.Contains(log, `\u202eevil`) {
		t.Errorf("the bidirectional control is not shown escaped:\n%s", log)
	}
	if n, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[role=log] b, [role=log] img').length`)); n != 0 {
		t.Errorf("the agent's markup became %d elements of the page", n)
	}
	for _, name := range []string{"Allow", "Deny", "Always"} {
		if err := chromedp.Do(ctx, waitVisible("button", name)); err != nil {
			t.Fatalf("the card has no button %s: %v", name, err)
		}
	}

	// Another origin cannot answer the card: neither a page of its own
	// nor a request that even knows the secret.
	path := "/agents/agent-1/permission"
	evil := startEvil(t, v.base+path)
	tab2, cancelTab2 := chromedp.NewContext(ctx)
	defer cancelTab2()
	if err := chromedp.Do(tab2, chromedp.Navigate(evil), waitJS(`() => document.title === "done"`)); err != nil {
		t.Fatal(err)
	}
	for _, e := range v.awaitExchanges(path, 3) {
		if e.status != http.StatusForbidden {
			t.Errorf("%s %s from another origin answered %d, want 403", e.method, e.path, e.status)
		}
	}
	res := v.post(path, url.Values{"request": {"r1"}, "option": {"yes"}}, map[string]string{SecretHeader: v.srv.Secret(), "Origin": "http://evil.example"})
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("a foreign Origin with the secret answered the card: %d", res.StatusCode)
	}
	if err := chromedp.Do(ctx, waitVisible("button", "Allow")); err != nil {
		t.Fatalf("the card no longer waits after the foreign tries: %v", err)
	}

	// A second tab of the view shows the card; answered in the first, it
	// is answered in both, and the second tab's answer is refused.
	if err := chromedp.Do(tab2, chromedp.Navigate(v.base+"/agents/agent-1"), waitVisible("group", card)); err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx,
		click("button", "Allow"),
		inLog("Answered: Allow once"),
		inLog("Edited."),
		inLog("End of turn (end_turn), 100 tokens in, 20 out"),
	)
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(tab2, inLog("Answered: Allow once")); err != nil {
		t.Fatalf("the second tab does not show the card answered: %v", err)
	}
	second, err := chromedp.Run(tab2, chromedp.Evaluate[string](`fetch("/agents/agent-1/permission", {method: "POST",
		headers: {"X-Escouade-Secret": document.querySelector('meta[name="escouade-secret"]').content, "Content-Type": "application/x-www-form-urlencoded"},
		body: "request=r1&option=no"}).then(r => r.json()).then(a => a.error)`, chromedp.EvalAwaitPromise))
	if err != nil || !strings.Contains(second, "already answered") {
		t.Errorf("a second answer from the second tab: %q, %v", second, err)
	}
	screenshot(t, ctx, "agent-answered")

	err = chromedp.Do(ctx,
		prompt("keep going"),
		inLog("working on it"),
		waitText("Working"),
		click("button", "Cancel"),
		// No tokens per turn, only its context's size (Codex): said so.
		inLog("End of turn (cancelled), 5000 tokens in its context"),
		prompt("ask me"),
		waitVisible("group", "Question"),
		click("radio", "blue"),
		click("button", "Answer"),
		inLog("Answered: blue"),
	)
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "agent-question")

	// The mode and model menus change the running agent.
	err = chromedp.Do(ctx,
		choose("Model", "fake-small"),
		inLog("model: fake-small"),
		choose("Mode", "acceptEdits"),
		inLog("mode: edits"),
	)
	if err != nil {
		t.Fatal(err)
	}

	// Disabled, its plugin takes the agent's harness away: the agent stays,
	// « Harness absent », its conversation readable.
	err = chromedp.Do(ctx,
		chromedp.Navigate(v.base+"/plugins/dev.escouade.fake-acp"),
		click("button", "Disable"),
		// The page reloads after the change: its Enable button says it has.
		waitVisible("button", "Enable"),
		waitText("State: Disabled"),
		click("link", "Agents"),
		waitJS(`() => document.querySelector('tr[data-agent="agent-1"]')?.innerText.includes("Harness absent")`),
	)
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "agents-absent")
	// The list redraws as the agent stops: its page is opened by address.
	err = chromedp.Do(ctx,
		chromedp.Navigate(v.base+"/agents/agent-1"),
		inLog("Hello, world"),
		inLog("Answered: Allow once"),
		waitText("State: Harness absent: its plugin dev.escouade.fake-acp is disabled"),
		prompt("are you there?"),
		waitJS(`() => document.querySelector('[role=alert]').innerText.includes("Harness absent")`),
	)
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "agent-absent")

	// Enabled again, it comes back with its conversation.
	err = chromedp.Do(ctx,
		chromedp.Navigate(v.base+"/plugins/dev.escouade.fake-acp"),
		click("button", "Enable"),
		waitVisible("button", "Disable"),
		waitText("State: Idle"),
		chromedp.Navigate(v.base+"/agents/agent-1"),
		waitText("State: Stopped"),
		inLog("Hello, world"),
		prompt("back again"),
		inLog("Hello, world <b>bold</b>"), // a new process plays its script from the start
	)
	if err != nil {
		t.Fatal(err)
	}
}

// The New agent form refuses a relative folder with the rule, and offers
// only the modes of the chosen harness's caps.modes and its models.
func TestBrowserNewAgentForm(t *testing.T) {
	ctx := browser(t)
	script, _ := agentScript(t, conversationScript)
	v, _ := agentView(t, script)
	err := chromedp.Do(ctx,
		chromedp.Navigate(v.url()),
		click("link", "Agents"),
		fill("Folder", "relative/dir"),
		click("button", "New agent"),
		waitJS(`() => document.querySelector('[role=alert]').innerText.includes("is not an absolute path")`),
	)
	if err != nil {
		t.Fatal(err)
	}
	modes, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelector('#agent-mode').options].filter(o => !o.disabled).map(o => o.value)`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(modes, " ") != "default acceptEdits bypassPermissions readOnly" {
		t.Errorf("modes offered: %q", modes)
	}
	models, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelector('#agent-model').options].map(o => o.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(models, "|") != "The agent's default|Fake small|Fake large" {
		t.Errorf("models offered: %q", models)
	}
	screenshot(t, ctx, "agents-new")
}
