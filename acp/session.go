package acp

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/escouade-dev/escouade-plugin/internal/bqueue"
)

// protocolVersion is the ACP version this client speaks.
const protocolVersion = 1

// Attach values of the session item.
const (
	AttachNew    = "new"
	AttachLoad   = "load"
	AttachResume = "resume"
)

// Notices whose text the specification fixes.
const (
	noticeContextCleared = "new session (context cleared)"
	noticeVersionFormat  = "it speaks ACP version %s; this client speaks version 1"
)

// agentState is what initialize told of the agent.
type agentState struct {
	name        string
	loadSession bool
	resume      bool
	close       bool
	mcpHTTP     bool
	mcpSSE      bool
	authMethods []string
}

// sessionState is the session the client is attached to.
type sessionState struct {
	id       string
	attach   string
	loading  bool                           // session/load sent, not answered: updates are history
	buffered *bqueue.Queue[json.RawMessage] // session/update params for a session id not yet known; nil until one comes
	config   []configOption
	modes    modeState
}

type initializeParams struct {
	ProtocolVersion    int                `json:"protocolVersion"`
	ClientCapabilities clientCapabilities `json:"clientCapabilities"`
	ClientInfo         implementation     `json:"clientInfo"`
}

type clientCapabilities struct {
	FS       fsCapabilities `json:"fs"`
	Terminal bool           `json:"terminal"`
}

type fsCapabilities struct {
	ReadTextFile  bool `json:"readTextFile"`
	WriteTextFile bool `json:"writeTextFile"`
}

type implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type initializeResult struct {
	ProtocolVersion   json.RawMessage `json:"protocolVersion"`
	AgentCapabilities struct {
		LoadSession     bool `json:"loadSession"`
		McpCapabilities struct {
			HTTP bool `json:"http"`
			SSE  bool `json:"sse"`
		} `json:"mcpCapabilities"`
		SessionCapabilities struct {
			Resume json.RawMessage `json:"resume"`
			Close  json.RawMessage `json:"close"`
		} `json:"sessionCapabilities"`
	} `json:"agentCapabilities"`
	AgentInfo *implementation `json:"agentInfo"`
	// AuthMethods are read loosely: only their names matter here.
	AuthMethods []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	} `json:"authMethods"`
}

type sessionParams struct {
	SessionID  string            `json:"sessionId,omitempty"`
	Cwd        string            `json:"cwd"`
	MCPServers []json.RawMessage `json:"mcpServers"`
}

type sessionResult struct {
	SessionID     string          `json:"sessionId"`
	Modes         json.RawMessage `json:"modes"`
	Models        json.RawMessage `json:"models"`
	ConfigOptions json.RawMessage `json:"configOptions"`
}

func (c *Client) initializeParams() initializeParams {
	return initializeParams{
		ProtocolVersion: protocolVersion,
		ClientCapabilities: clientCapabilities{
			FS: fsCapabilities{ReadTextFile: c.opts.FS, WriteTextFile: c.opts.FS},
		},
		ClientInfo: implementation{Name: c.opts.clientName(), Version: c.opts.clientVersion()},
	}
}

func (c *Client) onInitialize(result json.RawMessage, err *Error) {
	if err != nil {
		c.end(notice(fmt.Sprintf("the agent refused to start: initialize failed: %v", err)))
		return
	}
	var r initializeResult
	if e := json.Unmarshal(result, &r); e != nil {
		c.end(notice(fmt.Sprintf("the agent's initialize answer is not understood: %v", e)), unknown(result))
		return
	}
	if v := strings.TrimSpace(string(r.ProtocolVersion)); v != "1" {
		c.end(notice(fmt.Sprintf(noticeVersionFormat, jsonText(r.ProtocolVersion))))
		return
	}
	c.agent = agentFrom(&r)
	c.openSession()
}

func agentFrom(r *initializeResult) agentState {
	caps := r.AgentCapabilities
	a := agentState{
		loadSession: caps.LoadSession,
		resume:      present(caps.SessionCapabilities.Resume),
		close:       present(caps.SessionCapabilities.Close),
		mcpHTTP:     caps.McpCapabilities.HTTP,
		mcpSSE:      caps.McpCapabilities.SSE,
	}
	if r.AgentInfo != nil {
		a.name = r.AgentInfo.Name
	}
	for _, m := range r.AuthMethods {
		a.authMethods = append(a.authMethods, firstNonEmpty(m.Name, m.ID))
	}
	return a
}

// present tells whether an optional capability object is offered.
func present(v json.RawMessage) bool { return len(v) > 0 && string(v) != "null" }

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// openSession re-attaches to Options.SessionID when there is one, else
// starts a new session (docs/harness.md#the-session).
func (c *Client) openSession() {
	c.phase = phaseOpening
	id := c.opts.SessionID
	switch {
	case id != "" && c.agent.loadSession:
		c.attachTo(id, AttachLoad, methodSessionLoad)
	case id != "" && c.agent.resume:
		c.attachTo(id, AttachResume, methodSessionResume)
	case id != "":
		c.emit(notice(noticeContextCleared))
		c.newSession()
	default:
		c.newSession()
	}
}

func (c *Client) newSession() {
	params := sessionParams{Cwd: c.opts.Cwd, MCPServers: c.mcpServers()}
	c.call(methodSessionNew, params, c.onNewSession)
}

func (c *Client) attachTo(id, attach, method string) {
	c.session.id = id
	c.session.loading = attach == AttachLoad
	params := sessionParams{SessionID: id, Cwd: c.opts.Cwd, MCPServers: c.mcpServers()}
	c.call(method, params, func(result json.RawMessage, err *Error) {
		c.session.loading = false
		if err != nil {
			c.session.id = ""
			c.emit(notice(fmt.Sprintf("%s failed: %v", method, err)), notice(noticeContextCleared))
			c.newSession()
			return
		}
		c.sessionOpened(id, attach, result)
	})
}

func (c *Client) onNewSession(result json.RawMessage, err *Error) {
	if err != nil {
		c.end(notice(c.newSessionFailure(err)))
		return
	}
	var r sessionResult
	if e := json.Unmarshal(result, &r); e != nil || r.SessionID == "" {
		c.end(notice("the agent's session/new answer holds no session id"), unknown(result))
		return
	}
	c.sessionOpened(r.SessionID, AttachNew, result)
}

func (c *Client) newSessionFailure(err *Error) string {
	if err.Code != CodeAuthRequired {
		return fmt.Sprintf("the agent could not open a session: %v", err)
	}
	offers := ""
	if len(c.agent.authMethods) > 0 {
		offers = fmt.Sprintf(" (it offers: %s)", strings.Join(c.agent.authMethods, ", "))
	}
	return fmt.Sprintf("the agent needs you to log in: run its own login command in a terminal%s, then start it again", offers)
}

// sessionOpened keeps the session's state, tells the app, replays what was
// buffered and sends what waited for the session.
func (c *Client) sessionOpened(id, attach string, result json.RawMessage) {
	var r sessionResult
	_ = json.Unmarshal(result, &r) // a load or resume answer may be null: nothing to keep
	c.session.id, c.session.attach = id, attach
	c.keepConfig(r.ConfigOptions)
	c.keepModes(r.Modes)
	c.keepCurrent()
	c.phase = phaseReady
	c.emit(Item{Type: TypeSession, SessionID: id, Attach: attach,
		Modes: r.Modes, Models: r.Models, ConfigOptions: r.ConfigOptions})
	c.replayBuffered()
	c.sendWaiting()
}

// mcpServers picks, for each server, the form the agent can take.
func (c *Client) mcpServers() []json.RawMessage {
	servers := []json.RawMessage{}
	for _, s := range c.opts.MCPServers {
		switch {
		case c.takesMCP(s.Server):
			servers = append(servers, s.Server)
		case len(s.Fallback) > 0:
			servers = append(servers, s.Fallback)
		default:
			c.emit(notice(fmt.Sprintf("the agent takes no %s MCP server: %s is left out",
				mcpType(s.Server), mcpName(s.Server))))
		}
	}
	return servers
}

func (c *Client) takesMCP(server json.RawMessage) bool {
	switch mcpType(server) {
	case "http":
		return c.agent.mcpHTTP
	case "sse":
		return c.agent.mcpSSE
	}
	return true
}

func mcpType(server json.RawMessage) string {
	var s struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(server, &s) // no type: stdio
	return s.Type
}

func mcpName(server json.RawMessage) string {
	var s struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(server, &s)
	return s.Name
}
