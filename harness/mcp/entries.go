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

// The flags of StdioCommand, as the command line names them (without the
// dashes): the server's URL, and the file the token is read from.
const (
	StdioFlagURL       = "url"
	StdioFlagTokenFile = "token-file"
)

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
// "exe mcp-stdio --url URL --token-file PATH". The agent starts that bridge
// and owns its stdin, so the token goes through a one-time file of a private
// folder of the server's (see StdioEntryFile), never in the arguments or the
// environment. Should that folder be out of reach, the entry falls back to
// the bridge reading the token from the first line of its stdin.
//
//	{"name":"escouade","command":exe,"args":["mcp-stdio","--url",URL,"--token-file",PATH],"env":[]}
func (s *Server) StdioEntry(agent string, exe string) json.RawMessage {
	if dir, err := s.tokenFolder(); err == nil {
		if entry, err := s.StdioEntryFile(agent, exe, dir); err == nil {
			return entry
		}
	}
	s.liveToken(agent)
	return mustMarshal(stdioEntry{
		Name:    ServerName,
		Command: exe,
		Args:    []string{StdioCommand, "--" + StdioFlagURL, s.url},
		Env:     []nameValue{},
	})
}

// tokenFolder is the server's private folder for token files, made at first
// use and removed by Close.
func (s *Server) tokenFolder() (string, error) {
	s.tokenDirOnce.Do(func() {
		s.tokenDir, s.tokenDirErr = os.MkdirTemp("", "escouade-mcp-*")
	})
	return s.tokenDir, s.tokenDirErr
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
	s.tokenFiles.add(agent, f.Name())
	return mustMarshal(stdioEntry{
		Name:    ServerName,
		Command: exe,
		Args:    []string{StdioCommand, "--" + StdioFlagURL, s.url, "--" + StdioFlagTokenFile, f.Name()},
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
