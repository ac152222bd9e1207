package mcp

import (
	"context"
	"encoding/json"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// mirror is the bridge's local MCP server, offering the HTTP server's tools
// and forwarding their calls.
type mirror struct {
	mu    sync.Mutex
	local *sdk.Server         // nil until start
	names map[string]struct{} // the tools offered now
}

// start builds the local server in the upstream server's name and copies
// its tools.
func (m *mirror) start(ctx context.Context, upstream *sdk.ClientSession) (*sdk.Server, error) {
	init := upstream.InitializeResult()
	local := sdk.NewServer(init.ServerInfo, &sdk.ServerOptions{Instructions: init.Instructions})
	m.mu.Lock()
	m.local = local
	m.mu.Unlock()
	if err := m.sync(ctx, upstream); err != nil {
		return nil, err
	}
	return local, nil
}

// toolsChanged is the client's ToolListChangedHandler. A failure leaves the
// previous list: the next call of a vanished tool fails upstream anyway.
func (m *mirror) toolsChanged(ctx context.Context, req *sdk.ToolListChangedRequest) {
	m.sync(ctx, req.Session)
}

// sync makes the local tools those of upstream.
func (m *mirror) sync(ctx context.Context, upstream *sdk.ClientSession) error {
	var tools []*sdk.Tool
	for tool, err := range upstream.Tools(ctx, nil) {
		if err != nil {
			return err
		}
		tools = append(tools, tool)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.local == nil {
		return nil // start syncs once the local server exists
	}
	fresh := make(map[string]struct{}, len(tools))
	for _, tool := range tools {
		m.local.AddTool(tool, forward(upstream))
		fresh[tool.Name] = struct{}{}
	}
	for name := range m.names {
		if _, ok := fresh[name]; !ok {
			m.local.RemoveTools(name)
		}
	}
	m.names = fresh
	return nil
}

// forward calls the tool upstream; its result or protocol error is the
// local answer. Cancelling the local call cancels the upstream one. The
// request's _meta stays behind: it belongs to the local hop (its protocol
// version, its progress token) and the upstream session has its own.
func forward(upstream *sdk.ClientSession) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		params := &sdk.CallToolParams{Name: req.Params.Name}
		if len(req.Params.Arguments) > 0 {
			params.Arguments = json.RawMessage(req.Params.Arguments)
		}
		return upstream.CallTool(ctx, params)
	}
}
