package main

import (
	"context"
	"flag"

	"github.com/escouade-dev/escouade-plugin/harness/mcp"
)

// cmdMCPStdio is the stdio form of the host's MCP server, for an ACP agent
// without mcpCapabilities.http: it reads the agent's token from the first
// line of stdin, then bridges MCP on stdin/stdout to the server at --url.
// The token never rides in the arguments or the environment.
func cmdMCPStdio(e env, args []string) error {
	fs := flag.NewFlagSet(mcp.StdioCommand, flag.ContinueOnError)
	url := fs.String("url", "", "the host's MCP server URL (http:// on loopback)")
	pos, err := parse(fs, args)
	if err != nil {
		return usageError{err.Error()}
	}
	if len(pos) != 0 || *url == "" {
		return usagef("want: escouade-plugin mcp-stdio --url URL (the token on the first line of stdin)")
	}
	return mcp.ServeStdio(context.Background(), mcp.StdioOptions{URL: *url, In: e.stdin, Out: e.stdout})
}
