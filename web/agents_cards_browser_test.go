package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// cardsScript has tool calls whose ids are names every script object
// inherits, the agent's own switch to its mode yolo, an edit with its
// card, then a command's card with the four kinds of answers.
const cardsScript = `{
  "scenes": [
    { "steps": [
        { "update": { "sessionUpdate": "tool_call", "toolCallId": "constructor", "title": "Look", "kind": "read", "status": "pending" } },
        { "update": { "sessionUpdate": "tool_call", "toolCallId": "__proto__", "title": "Look more", "kind": "read", "status": "pending" } },
        { "update": { "sessionUpdate": "tool_call_update", "toolCallId": "constructor", "status": "completed" } },
        { "update": { "sessionUpdate": "current_mode_update", "currentModeId": "yolo" } },
        { "update": { "sessionUpdate": "tool_call", "toolCallId": "call-1", "title": "Edit notes.txt", "kind": "edit", "status": "pending",
                      "rawInput": { "path": "@DIR@/notes.txt", "old_string": "old", "new_string": "new" } } },
        { "permission": { "toolCall": { "toolCallId": "call-1" }, "options": [
            { "optionId": "yes", "name": "Yes", "kind": "allow_once" },
            { "optionId": "no", "name": "No", "kind": "reject_once" }] } },
        { "update": { "sessionUpdate": "tool_call", "toolCallId": "toString", "title": "Run command", "kind": "execute", "status": "pending",
                      "rawInput": { "command": "rm -rf ~/important" } } },
        { "permission": { "toolCall": { "toolCallId": "toString" }, "options": [
            { "optionId": "once", "name": "Yes", "kind": "allow_once" },
            { "optionId": "always", "name": "Always", "kind": "allow_always" },
            { "optionId": "no", "name": "No", "kind": "reject_once" },
            { "optionId": "never", "name": "Never", "kind": "reject_always" }] } },
        { "text": "All done." }
      ] }
  ]
}`

// cardText is the text of the permission card that shows want.
const cardText = `(want) => [...document.querySelectorAll('[role=log] [role=group]')].map(c => c.innerText).find(t => t.includes(want)) || ""`

// Tool calls named "constructor", "__proto__" and "toString" are drawn and
// hide nothing after them; the agent's own switch to yolo is a notice
// while the Mode menu keeps the mode the host applies; a command's card
// shows the command and what each answer means, and is answered.
func TestBrowserAgentCardsShowTheirInput(t *testing.T) {
	ctx := browser(t)
	script, dir := agentScript(t, cardsScript)
	v, _ := agentView(t, script)
	err := chromedp.Do(ctx,
		startAgent(v, fakeACPHarness, dir, "default", ""),
		waitText("Idle"),
		prompt("go"),
		waitVisible("group", "Permission: Edit · Edit notes.txt"),
		inLog("Look [completed]"),
		inLog("Look more [pending]"),
		inLog("switched itself to its mode yolo (the app mode bypassPermissions); the host still applies the app mode default"),
	)
	if err != nil {
		t.Fatal(err)
	}
	mode, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#agent-mode').value`))
	if err != nil || mode != "default" {
		t.Errorf("after the agent's own switch the Mode menu reads %q (%v), want the host's default", mode, err)
	}
	if log := bodyText(t, ctx); strings.Contains(log, "could not be shown") {
		t.Errorf("an item was not drawn:\n%s", log)
	}
	err = chromedp.Do(ctx,
		click("button", "Allow"),
		inLog("Answered: Allow once"),
		waitJS(`(want) => (`+cardText+`)(want).includes("rm -rf ~/important")`, "rm -rf ~/important"),
	)
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "agent-command-card")
	card, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(`+cardText+`)("rm -rf ~/important")`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"command:\nrm -rf ~/important", `"command": "rm -rf ~/important"`,
		"Allow: Allow this time", "Deny: Deny this time",
		"Always: Allow from now on (the agent will not ask again for this)",
		"Never: Deny from now on (permanent)",
	} {
		if !strings.Contains(card, want) {
			t.Errorf("the command's card lacks %q:\n%s", want, card)
		}
	}
	code, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('[role=log] pre code').length`))
	if err != nil || code < 2 {
		t.Errorf("the input is in %d code blocks (%v), want its command and its JSON", code, err)
	}
	err = chromedp.Do(ctx,
		click("button", "Deny"),
		inLog("Answered: Reject"),
		inLog("All done."),
	)
	if err != nil {
		t.Fatal(err)
	}

	// The host's own change of mode, made elsewhere, is the menu's.
	res := v.post("/agents/agent-1/mode", url.Values{"mode": {"acceptEdits"}}, map[string]string{SecretHeader: v.srv.Secret()})
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("the mode change answered %d", res.StatusCode)
	}
	if err := chromedp.Do(ctx, waitJS(`() => document.querySelector('#agent-mode').value === "acceptEdits"`)); err != nil {
		t.Fatalf("the Mode menu does not follow the host's mode: %v", err)
	}
}
