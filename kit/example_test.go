package kit_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/escouade-dev/escouade-plugin/kit"
)

// A plugin's main registers its methods and events, then runs: Run serves
// the host over stdin and stdout, as a process or as a module alike.
func Example() {
	p := kit.New()
	p.Handle("notes/echo", func(ctx context.Context, params json.RawMessage) (any, error) {
		return params, nil
	})
	p.OnEvent("ticket.column", func(ctx context.Context, params json.RawMessage) {
		p.Log("info", "a ticket moved")
	})
	if err := p.Run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// Serve is Run over any reader and writer: here the host's lines are
// given by hand, and the end of the input ends the plugin.
func ExamplePlugin_Serve() {
	p := kit.New()
	p.Handle("notes/echo", func(ctx context.Context, params json.RawMessage) (any, error) {
		return params, nil
	})
	host := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}
{"jsonrpc":"2.0","id":2,"method":"notes/echo","params":{"text":"hi"}}
`)
	var out bytes.Buffer
	if err := p.Serve(context.Background(), host, &out); err != nil {
		fmt.Println(err)
	}
	lines := bufio.NewScanner(&out)
	for lines.Scan() {
		if strings.Contains(lines.Text(), `"id":2`) {
			fmt.Println(lines.Text())
		}
	}
	// Output:
	// {"jsonrpc":"2.0","id":2,"result":{"text":"hi"}}
}
