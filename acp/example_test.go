package acp_test

import (
	"encoding/json"
	"fmt"

	"github.com/escouade-dev/escouade-plugin/acp"
)

// The client is a state machine with no goroutine: the harness writes the
// lines it returns to the agent's stdin and feeds it each line of the
// agent's stdout. Here the agent's answer to initialize is fed by hand, and
// the client goes on to open a session.
func Example() {
	c := acp.NewClient(acp.Options{Cwd: "/projects/notes", FS: true})
	write := func(out []acp.Out) {
		for _, o := range out {
			var m struct{ Method string }
			_ = json.Unmarshal(o.Line, &m)
			fmt.Println("to the agent:", m.Method)
		}
	}
	write(c.Start())
	agentLines := [][]byte{[]byte(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}`)}
	for _, line := range agentLines {
		items, out := c.Feed(line)
		for _, it := range items {
			fmt.Println("shown:", it.Type)
		}
		write(out)
	}
	// Output:
	// to the agent: initialize
	// to the agent: session/new
}
