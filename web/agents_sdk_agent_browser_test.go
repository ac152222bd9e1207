package web

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// sdkPackage is the ACP TypeScript SDK whose example agent the Agents
// page is tried against: a third party's offline agent that streams text,
// runs a tool, asks a permission for an edit and honours a cancel.
const sdkPackage = "@agentclientprotocol/sdk@1.9.0"

// sdkExampleAgent installs the SDK from npm into the user's cache once
// (later runs find it there) and gives the path of its example agent.
// The tests need node and npm, as they need Chromium.
func sdkExampleAgent(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node on this machine: the ACP SDK's example agent needs it")
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(cache, "escouade-plugin-tests", "acp-sdk-1.9.0")
	agent := filepath.Join(dir, "node_modules", "@agentclientprotocol", "sdk", "dist", "examples", "agent.js")
	if _, err := os.Stat(agent); err == nil {
		return agent
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"private": true}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	npm := filepath.Join(filepath.Dir(node), "npm")
	if _, err := os.Stat(npm); err != nil {
		npm = "npm"
	}
	out, err := exec.Command(npm, "install", "--prefix", dir, "--no-audit", "--no-fund", "--save-exact", sdkPackage).CombinedOutput()
	if err != nil {
		t.Fatalf("npm install %s: %v\n%s", sdkPackage, err, out)
	}
	return agent
}

// sdkAgentPlugin writes a plugin folder that describes the SDK's example
// agent as a harness run by node.
func sdkAgentPlugin(t *testing.T, agentJS string) string {
	t.Helper()
	dir := t.TempDir()
	m := `{
  "id": "dev.example.acp-ts", "name": "ACP TypeScript example", "version": "1.0.0",
  "escouade": {"api": "1"},
  "contributes": {"harnesses": [{
    "id": "example", "name": "TS example", "locate": {"names": ["node"]},
    "acp": {"args": [` + quoteJS(agentJS) + `]}
  }]}
}`
	if err := os.WriteFile(filepath.Join(dir, "escouade-plugin.json"), []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The ACP TypeScript SDK's example agent, driven from the page: its text
// streamed, its read tool, its permission card for an edit with the diff
// shown, allowed; then a turn cancelled mid-way.
func TestBrowserAgentOfTheTypeScriptSDK(t *testing.T) {
	agentJS := sdkExampleAgent(t)
	ctx := browser(t)
	home := t.TempDir()
	installed(t, home, sdkAgentPlugin(t, agentJS))
	v := startView(t, home, func(o *Options) { o.Host.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()} })
	err := chromedp.Do(ctx,
		startAgent(v, "plugin:dev.example.acp-ts:example", t.TempDir(), "", ""),
		waitText("Idle"),
		prompt("improve the project"),
		inLog("I'll help you with that."),
		inLog("Reading project files [completed]"),
		waitVisible("group", "Permission: Edit · Modifying critical configuration file"),
		waitText(`+{"database": {"host": "new-host"}}`),
	)
	if err != nil {
		b, _ := os.ReadFile(filepath.Join(home, "harness", "agent-1.jsonl"))
		t.Fatalf("%v\n%s\n%v\n%s", err, bodyText(t, ctx), v.exchanges(), b)
	}
	screenshot(t, ctx, "agent-sdk-permission")
	err = chromedp.Do(ctx,
		click("button", "Allow"),
		inLog("Answered: Allow once"),
		inLog("I've successfully updated the configuration."),
		inLog("End of turn (end_turn)"),
		prompt("again"),
		inLog("Reading project files [pending]"),
		click("button", "Cancel"),
		inLog("End of turn (cancelled)"),
	)
	if err != nil {
		t.Fatalf("%v\n%s", err, bodyText(t, ctx))
	}
	if text := bodyText(t, ctx); strings.Count(text, "End of turn") != 2 {
		t.Errorf("want two turns ended:\n%s", text)
	}
	screenshot(t, ctx, "agent-sdk-cancelled")
}
