package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/escouade-dev/escouade-plugin/harness/mcp"
)

func TestCmdMCPStdioUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"no url", nil},
		{"empty url", []string{"--url", ""}},
		{"extra argument", []string{"--url", "http://127.0.0.1:1/mcp", "more"}},
		{"unknown flag", []string{"--token", "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := cmdMCPStdio(env{strings.NewReader(""), io.Discard, io.Discard}, tt.args)
			if !isUsage(err) {
				t.Errorf("cmdMCPStdio: %v, want a usage error", err)
			}
		})
	}
}

func TestCmdMCPStdioRefuses(t *testing.T) {
	tests := []struct{ name, url, stdin string }{
		{"remote url", "http://192.0.2.1:8080/mcp", "tok\n"},
		{"no token", "http://127.0.0.1:1/mcp", ""},
		{"MCP message instead of the token", "http://127.0.0.1:1/mcp", `{"jsonrpc":"2.0","id":1,"method":"initialize"}` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := cmdMCPStdio(env{strings.NewReader(tt.stdin), io.Discard, io.Discard}, []string{"--url", tt.url})
			if err == nil || isUsage(err) {
				t.Errorf("cmdMCPStdio: %v, want a failure", err)
			}
		})
	}
}

// TestCmdMCPStdio runs the command in-process on pipes, as an agent would
// run it: the token line, then MCP.
func TestCmdMCPStdio(t *testing.T) {
	asked := make(chan string, 1)
	srv, err := mcp.Start(t.Context(), mcp.Options{Ask: func(_ context.Context, agent string, _ json.RawMessage) ([][]string, error) {
		asked <- agent
		return [][]string{{"yes"}}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- cmdMCPStdio(env{inR, outW, &stderr}, []string{"--url", srv.URL()}) }()
	if _, err := io.WriteString(inW, srv.NewToken("agent-1")+"\n"); err != nil {
		t.Fatal(err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: mcp.ToolAskQuestion, Arguments: json.RawMessage(
		`{"questions":[{"question":"Go on?","options":[{"label":"yes"},{"label":"no"}],"multiSelect":false}]}`)})
	if err != nil || res.IsError {
		t.Fatalf("CallTool: %+v, %v", res, err)
	}
	cs.Close()
	if err := <-done; err != nil {
		t.Errorf("cmdMCPStdio: %v (stderr %q)", err, stderr.String())
	}
	if diff := cmp.Diff("agent-1", <-asked); diff != "" {
		t.Errorf("agents asking (-want +got):\n%s", diff)
	}
}
