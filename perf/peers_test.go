package perf

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/rpc"
	"os"
	"os/exec"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The peers: the same echo through the plugin systems a host could have
// been built on instead, each with its own child program.
const (
	programGoPlugin = "goplugin-echo" // hashicorp/go-plugin, net/rpc
	programMCP      = "mcp-echo"      // the MCP Go SDK, a tool over stdio
)

// goPluginHandshake is what both ends of the go-plugin rig check.
var goPluginHandshake = plugin.HandshakeConfig{
	ProtocolVersion:  1,
	MagicCookieKey:   "ESCOUADE_PERF_GOPLUGIN",
	MagicCookieValue: "echo",
}

// EchoRPC is the go-plugin echo's net/rpc server: it answers the params.
type EchoRPC struct{}

// Echo answers args as they came.
func (EchoRPC) Echo(args json.RawMessage, reply *json.RawMessage) error {
	*reply = args
	return nil
}

// echoGoPlugin is the go-plugin plugin: net/rpc on both ends.
type echoGoPlugin struct{}

func (echoGoPlugin) Server(*plugin.MuxBroker) (any, error) { return EchoRPC{}, nil }

func (echoGoPlugin) Client(_ *plugin.MuxBroker, c *rpc.Client) (any, error) { return c, nil }

// goPluginPlugins is the plugin set of both ends.
var goPluginPlugins = map[string]plugin.Plugin{"echo": echoGoPlugin{}}

// goPluginEcho serves the echo as a go-plugin program; it never returns.
func goPluginEcho() error {
	plugin.Serve(&plugin.ServeConfig{HandshakeConfig: goPluginHandshake, Plugins: goPluginPlugins})
	return nil
}

// goPluginRig calls the echo through go-plugin's net/rpc client.
type goPluginRig struct {
	client *plugin.Client
	rpc    *rpc.Client
	one    json.RawMessage
}

func startGoPlugin(tb testing.TB) rig {
	tb.Helper()
	cmd := exec.Command(testBinary(tb), "-test.run=^$")
	cmd.Env = append(os.Environ(), programEnv+"="+programGoPlugin)
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  goPluginHandshake,
		Plugins:          goPluginPlugins,
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolNetRPC},
		Logger:           hclog.NewNullLogger(),
		Stderr:           io.Discard,
	})
	r := &goPluginRig{client: client, one: json.RawMessage(echoParams)}
	tb.Cleanup(r.close)
	proto, err := client.Client()
	if err != nil {
		tb.Fatal(err)
	}
	raw, err := proto.Dispense("echo")
	if err != nil {
		tb.Fatal(err)
	}
	r.rpc = raw.(*rpc.Client)
	return r
}

func (r *goPluginRig) roundTrip() error {
	var reply json.RawMessage
	err := r.rpc.Call("Plugin.Echo", r.one, &reply)
	return checkResult(reply, err, r.one)
}

// batch is batchSize calls at once: net/rpc has no batch, so they go
// concurrently over the one connection, as an app would send them.
func (r *goPluginRig) batch() error {
	return concurrently(batchSize, r.roundTrip)
}

func (r *goPluginRig) close() { r.client.Kill() }

// concurrently runs op n times at once and returns the first error.
func concurrently(n int, op func() error) error {
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { errs <- op() })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// echoArgs are the echo tool's arguments and structured result.
type echoArgs struct {
	N int `json:"n"`
}

// mcpEcho serves an echo tool with the MCP Go SDK over stdio.
func mcpEcho() error {
	s := mcp.NewServer(&mcp.Implementation{Name: "perf-echo", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "answers its arguments"},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, echoArgs, error) {
			return nil, in, nil
		})
	return s.Run(context.Background(), &mcp.StdioTransport{})
}

// mcpRig calls the echo tool through the SDK's client over stdio.
type mcpRig struct {
	session *mcp.ClientSession
	args    map[string]any
}

func startMCP(tb testing.TB) rig {
	tb.Helper()
	cmd := exec.Command(testBinary(tb), "-test.run=^$")
	cmd.Env = append(os.Environ(), programEnv+"="+programMCP)
	client := mcp.NewClient(&mcp.Implementation{Name: "perf", Version: "1.0.0"}, nil)
	session, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	r := &mcpRig{session: session, args: map[string]any{"n": 1}}
	tb.Cleanup(r.close)
	return r
}

func (r *mcpRig) roundTrip() error {
	res, err := r.session.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: r.args})
	if err != nil {
		return err
	}
	got, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return err
	}
	if string(got) != echoParams {
		return fmt.Errorf("echo tool answered %s", got)
	}
	return nil
}

// batch is batchSize tool calls at once: MCP clients send no batches.
func (r *mcpRig) batch() error { return concurrently(batchSize, r.roundTrip) }

func (r *mcpRig) close() { r.session.Close() }
