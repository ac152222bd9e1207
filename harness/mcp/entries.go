package mcp

import "encoding/json"

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

// mustMarshal marshals values made of strings only, which cannot fail.
func mustMarshal(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
