package main

import (
	"context"
	"flag"

	"github.com/escouade-dev/escouade-plugin/harness/mcp"
)

// cmdMCPStdio is the stdio form of the host's MCP server, for an ACP agent
// without mcpCapabilities.http: it reads the agent's token from the file
// --token-file names (removing it) or else from the first line of stdin,
// then bridges MCP on stdin/stdout to the server at --url. The token never
// rides in the arguments or the environment.
func cmdMCPStdio(e env, args []string) error {
	fs := flag.NewFlagSet(mcp.StdioCommand, flag.ContinueOnError)
	url := fs.String("url", "", "the host's MCP server URL (http:// on loopback)")
	tokenFile := fs.String("token-file", "", "read the token from this file (removed once read) instead of stdin's first line")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 || *url == "" {
		return usagef("want: escouade-plugin mcp-stdio --url URL (the token on the first line of stdin)")
	}
	opts := mcp.StdioOptions{URL: *url, In: e.stdin, Out: e.stdout}
	if *tokenFile != "" {
		if opts.Token, err = mcp.ReadTokenFile(*tokenFile); err != nil {
			return err
		}
	}
	return mcp.ServeStdio(context.Background(), opts)
}
