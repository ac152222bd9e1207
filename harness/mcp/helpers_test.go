package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// asked is one call of a recording Asker.
type asked struct {
	Agent     string
	Questions string
}

// recorder is an Asker that records its calls and answers from a script.
type recorder struct {
	mu      sync.Mutex
	calls   []asked
	answers [][]string
	err     error
}

func (r *recorder) ask(_ context.Context, agent string, questions json.RawMessage) ([][]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, asked{agent, string(questions)})
	return r.answers, r.err
}

func (r *recorder) recorded() []asked {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]asked(nil), r.calls...)
}

// start starts a server on loopback with ask, closed at the end of the test.
func start(t *testing.T, ask Asker) *Server {
	t.Helper()
	s, err := Start(t.Context(), Options{Ask: ask})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// withHeader sends "Authorization: Bearer token" on every request, the way
// an ACP agent given HTTPEntry does.
type withHeader struct{ token string }

func (h withHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+h.token)
	return http.DefaultTransport.RoundTrip(r)
}

// connect opens an MCP session with the official SDK client, as token.
func connect(t *testing.T, url, token string) (*sdk.ClientSession, error) {
	t.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "test-agent", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &sdk.StreamableClientTransport{
		Endpoint:   url,
		HTTPClient: &http.Client{Transport: withHeader{token}},
		MaxRetries: -1,
	}, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

func mustConnect(t *testing.T, url, token string) *sdk.ClientSession {
	t.Helper()
	cs, err := connect(t, url, token)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	return cs
}

// initializeBody is a legacy initialize request, as a client's first POST.
const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// post sends one MCP POST with the given Authorization header value (none
// when empty) and session id, and returns the response.
func post(t *testing.T, url, authorization, sessionID, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	if sessionID != "" {
		req.Header.Set("Mcp-Session-Id", sessionID)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// callAsk calls ask_question with arguments given as JSON text.
func callAsk(t *testing.T, cs *sdk.ClientSession, arguments string) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: ToolAskQuestion, Arguments: json.RawMessage(arguments)})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	return res
}

// text is the text of a result's content.
func text(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// askParams is a valid ask_question call.
func askParams() *sdk.CallToolParams {
	return &sdk.CallToolParams{Name: ToolAskQuestion, Arguments: json.RawMessage(
		`{"questions":[{"question":"Q?","options":[{"label":"x"}],"multiSelect":false}]}`)}
}
