package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/escouade-dev/escouade-plugin/harness/mcp"
)

// The host starts its MCP server once, with what shows a question card,
// and gives each agent's ACP session an entry that carries the agent's
// own token. It listens on a loopback address, so it is compiled, not
// run.
func Example() {
	ctx := context.Background()
	showQuestionCard := func(ctx context.Context, agent string, questions json.RawMessage) ([][]string, error) {
		<-ctx.Done() // a real card waits for the user's answers
		return nil, ctx.Err()
	}
	srv, err := mcp.Start(ctx, mcp.Options{Ask: showQuestionCard})
	if err != nil {
		fmt.Println("no MCP server:", err)
		return
	}
	defer srv.Close()
	token := srv.NewToken("agent-7")
	entry := srv.HTTPEntry("agent-7") // into session/new.mcpServers
	fmt.Println(len(token) > 0, json.Valid(entry))
}
