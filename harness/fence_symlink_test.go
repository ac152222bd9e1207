package harness

// Regression tests of bugs found in review: each failed before its fix.

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/acp"
	"github.com/escouade-dev/escouade-plugin/harness/mcp"
)

// TestReviewFenceDanglingSymlink: a symlink of the agent's folder that
// points to a file not yet made in a fenced project. It exists (the
// longest existing prefix is the link itself), so it must be resolved and
// refused; writing through it plants the file in the private project.
func TestRegressFenceDanglingSymlink(t *testing.T) {
	w := newWorld(t)
	target := filepath.Join(w.fence, "planted.txt")
	link := filepath.Join(w.dir, "dangle")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	fence, err := NewFence(w.dir, []string{w.fence})
	if err != nil {
		t.Fatal(err)
	}
	card := acp.Item{Kind: "edit", Locations: []string{link}, Options: []acp.PermissionOption{{ID: "y", Kind: KindAllowOnce}}}
	if kind, ok := AutoAnswer(ModeAcceptEdits, card, fence); ok {
		t.Errorf("acceptEdits let a write through a link out of the agent's folder pass (%s)", kind)
	}
	err = WriteText(fence, link, "planted")
	if !errors.Is(err, ErrFenced) {
		t.Errorf("write through a dangling link into the fence: %v, want ErrFenced", err)
	}
	if _, err := os.Stat(target); err == nil {
		t.Errorf("a file was planted in the fenced project")
	}
}

// TestReviewToolNameFoundLater: a tool_call without title or _meta names
// nothing; the title of a later update is then the first name found.
func TestRegressToolNameFoundLater(t *testing.T) {
	w := newWorld(t)
	script := reviewScript(t, `{"scenes":[{"steps":[
		{"update":{"sessionUpdate":"tool_call","toolCallId":"late","kind":"other","status":"pending"}},
		{"update":{"sessionUpdate":"tool_call_update","toolCallId":"late","title":"developer: shell · ls","status":"in_progress"}}
	]}]}`)
	r := start(t, script, Options{Cwd: w.dir})
	r.untilType(acp.TypeSession)
	r.must(r.s.Prompt("late"))
	items := r.untilType(acp.TypeTurn)
	tools := ofType(items, acp.TypeTool)
	if len(tools) != 2 || tools[1].Name != "Bash" {
		t.Errorf("tool items: %s", brief(tools))
	}
}

// TestReviewMCPAnotherAgentsToken: a request with another agent's token
// gets 401 (ACP-HARNESS §3), also when it names the other agent's MCP
// session.
func TestRegressMCPAnotherAgentsToken(t *testing.T) {
	srv, err := mcp.Start(t.Context(), mcp.Options{Ask: func(context.Context, string, json.RawMessage) ([][]string, error) {
		return nil, errors.New("no")
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	alice, bob := srv.NewToken("alice"), srv.NewToken("bob")
	post := func(token, session, body string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, srv.URL(), strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	resp := post(alice, "", initialize)
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || session == "" {
		t.Fatalf("initialize: %d %q", resp.StatusCode, session)
	}
	diff(t, "without a token", http.StatusUnauthorized, post("", session, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`).StatusCode)
	diff(t, "with another agent's token", http.StatusUnauthorized, post(bob, session, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`).StatusCode)
}

// TestReviewBypassShowsNoCard: "The app mode decides what passes without
// a card" (§3): under bypassPermissions a permission request is answered
// and no card is shown.
func TestRegressBypassShowsNoCard(t *testing.T) {
	w := newWorld(t)
	script := reviewScript(t, `{"scenes":[{"steps":[{"permission":{"toolCall":{"toolCallId":"c1","title":"ls","kind":"execute"},
		"options":[{"optionId":"y","name":"Yes","kind":"allow_once"},{"optionId":"n","name":"No","kind":"reject_once"}]}}]}]}`)
	r := start(t, script, Options{Cwd: w.dir, Mode: ModeBypassPermissions})
	r.untilType(acp.TypeSession)
	r.must(r.s.Prompt("go"))
	items := r.untilType(acp.TypeTurn)
	diff(t, "agent got", []string{"permission: selected y"}, texts(items, acp.TypeText))
	diff(t, "cards shown", 0, len(ofType(items, acp.TypePermission)))
}
