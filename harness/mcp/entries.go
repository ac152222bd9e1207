package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
)

// StdioCommand is the escouade-plugin command that bridges MCP over stdio
// to the server ([ServeStdio]).
const StdioCommand = "mcp-stdio"

// httpEntry is ACP's McpServer, http form.
type httpEntry struct {
	Type    string      `json:"type"`
	Name    string      `json:"name"`
	URL     string      `json:"url"`
	Headers []nameValue `json:"headers"`
}

// stdioEntry is ACP's McpServer, stdio form.
type stdioEntry struct {
	Name    string      `json:"name"`
	Command string      `json:"command"`
	Args    []string    `json:"args"`
	Env     []nameValue `json:"env"`
}

type nameValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// HTTPEntry is the server as an entry of session/new.mcpServers for agent,
// carrying its token (issued now if it has none):
//
//	{"type":"http","name":"escouade","url":"http://127.0.0.1:P/mcp",
//	 "headers":[{"name":"Authorization","value":"Bearer <token>"}]}
func (s *Server) HTTPEntry(agent string) json.RawMessage {
	return mustMarshal(httpEntry{
		Type:    "http",
		Name:    ServerName,
		URL:     s.url,
		Headers: []nameValue{{Name: "Authorization", Value: "Bearer " + s.liveToken(agent)}},
	})
}

// StdioEntry is the server as an entry of session/new.mcpServers for an
// agent without mcpCapabilities.http: exe (the host's own binary) run as
// "exe mcp-stdio --url URL". The token is in neither the arguments nor the
// environment: it goes on the bridge's stdin at start (see the package doc
// for what that asks of the agent). agent is accepted for symmetry with
// HTTPEntry and issued a token if it has none.
//
//	{"name":"escouade","command":exe,"args":["mcp-stdio","--url",URL],"env":[]}
func (s *Server) StdioEntry(agent string, exe string) json.RawMessage {
	s.liveToken(agent)
	return mustMarshal(stdioEntry{
		Name:    ServerName,
		Command: exe,
		Args:    []string{StdioCommand, "--url", s.url},
		Env:     []nameValue{},
	})
}

// StdioEntryFile is StdioEntry for a real ACP agent, which starts the
// bridge itself and writes only MCP on its stdin: the token is written to a
// new file of dir, readable by this user only, and the bridge is told its
// path with --token-file; it reads the file and removes it at start. The
// token is still in neither the arguments nor the environment.
//
//	{"name":"escouade","command":exe,"args":["mcp-stdio","--url",URL,"--token-file",PATH],"env":[]}
func (s *Server) StdioEntryFile(agent, exe, dir string) (json.RawMessage, error) {
	f, err := os.CreateTemp(dir, "mcp-token-*")
	if err != nil {
		return nil, fmt.Errorf("the MCP token file: %w", err)
	}
	_, werr := f.WriteString(s.liveToken(agent))
	if err := errors.Join(werr, f.Chmod(0o600), f.Close()); err != nil {
		os.Remove(f.Name())
		return nil, fmt.Errorf("the MCP token file: %w", err)
	}
	return mustMarshal(stdioEntry{
		Name:    ServerName,
		Command: exe,
		Args:    []string{StdioCommand, "--url", s.url, "--token-file", f.Name()},
		Env:     []nameValue{},
	}), nil
}

// ReadTokenFile reads the token StdioEntryFile wrote and removes the file,
// so the token is read once.
func ReadTokenFile(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("--token-file: %w", err)
	}
	os.Remove(path)
	return strings.TrimSpace(string(data)), nil
}

// mustMarshal marshals values made of strings only, which cannot fail.
func mustMarshal(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
