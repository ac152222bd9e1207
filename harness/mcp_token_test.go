package harness

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/harness/mcp"
)

// TestReviewMCPAnotherAgentsToken: a request with another agent's token
// gets 401 (docs/harness.md#the-hosts-mcp-server), also when it names the other agent's MCP
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
