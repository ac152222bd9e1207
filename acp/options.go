package acp

import "encoding/json"

// Defaults used when the matching Options field is left at its zero value.
const (
	DefaultClientName         = "escouade"
	DefaultClientVersion      = "0.0.0"
	DefaultMaxBufferedUpdates = 1000
)

// ReadOnly is the app mode of read-only discussions; SetMode(ReadOnly) sets
// Options.ReadOnlyMode.
const ReadOnly = "readOnly"

// Options configure a Client. The zero value is usable: it advertises no fs
// capability, gives no MCP server and uses the defaults above.
type Options struct {
	ClientName    string // clientInfo.name; DefaultClientName when empty
	ClientVersion string // clientInfo.version; DefaultClientVersion when empty

	FS  bool   // advertise fs.readTextFile and fs.writeTextFile (acp.fs)
	Cwd string // the agent's folder, absolute (session/new cwd)

	// MCPServers are given to the session in mcpServers.
	MCPServers []MCPServer

	// SessionID re-attaches to an earlier session: session/load when the
	// agent can, else session/resume, else a new session with a notice.
	SessionID string

	Modes        map[string]string // app mode → ACP mode (acp.modes)
	ReadOnlyMode string            // the ACP mode of read-only discussions (acp.readOnlyMode)
	ModelOption  string            // config option id that sets the model (acp.modelOption)

	Tools         map[string]string // agent tool name → app tool name (acp.tools)
	SubagentTools []string          // tools that start a sub-agent (acp.subagentTools)

	// AgentName is the key of _meta.<agent>.toolCall.toolName; the agent's
	// agentInfo.name from initialize when empty.
	AgentName string

	QuestionsInText bool   // acp.questionsInText (docs/harness.md#questions-in-text)
	Lang            string // "fr" or "en" (default) for the texts sent to the agent

	// CancelRequests sends $/cancel_request for the running prompt on Cancel.
	CancelRequests bool
	// Cursor speaks Cursor CLI's cursor/* extensions (acp.extensions
	// "cursor"): its questions and plans become cards, its to-do lists
	// plans, its tasks and images notices. Off, they are refused.
	Cursor bool

	// MaxBufferedUpdates bounds the updates kept for a session id not yet
	// known; past it the oldest is given out as an "unknown" item.
	// DefaultMaxBufferedUpdates when zero.
	MaxBufferedUpdates int
}

// MCPServer is one entry of mcpServers. Server is the ACP McpServer object;
// its "type" (http, sse, none for stdio) must be one the agent takes
// (mcpCapabilities), otherwise Fallback is sent in its place, or nothing
// when Fallback is empty (with a notice).
type MCPServer struct {
	Server   json.RawMessage
	Fallback json.RawMessage
}

func (o Options) clientName() string {
	if o.ClientName == "" {
		return DefaultClientName
	}
	return o.ClientName
}

func (o Options) clientVersion() string {
	if o.ClientVersion == "" {
		return DefaultClientVersion
	}
	return o.ClientVersion
}

func (o Options) maxBuffered() int {
	if o.MaxBufferedUpdates <= 0 {
		return DefaultMaxBufferedUpdates
	}
	return o.MaxBufferedUpdates
}

func (o Options) french() bool { return o.Lang == "fr" }
