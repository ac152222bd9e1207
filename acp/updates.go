package acp

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/escouade-dev/escouade-plugin/internal/bqueue"
)

// update is one session/update. Its fields are read once into a map: the
// kind and the unknown fields come from it, and a text chunk of many
// megabytes is not decoded again as a whole.
type update struct {
	params json.RawMessage            // the notification's params, as sent
	fields map[string]json.RawMessage // nil when the update is not an object
	raw    json.RawMessage            // the update as sent, read from params when needed
}

func (u *update) kind() string {
	var k string
	_ = json.Unmarshal(u.fields["sessionUpdate"], &k) // no kind, or not a string: unknown
	return k
}

// rawUpdate gives the update as the agent wrote it.
func (u *update) rawUpdate() json.RawMessage {
	if u.raw == nil {
		var p struct {
			Update json.RawMessage `json:"update"`
		}
		_ = json.Unmarshal(u.params, &p) // params decoded once already
		u.raw = p.Update
	}
	return u.raw
}

func (u *update) decode(v any) error { return json.Unmarshal(u.rawUpdate(), v) }

// decodeUpdate reads session/update params; ok is false when they hold no
// update.
func decodeUpdate(params json.RawMessage) (sessionID string, u *update, ok bool) {
	var p struct {
		SessionID string                     `json:"sessionId"`
		Update    map[string]json.RawMessage `json:"update"`
	}
	u = &update{params: params}
	if json.Unmarshal(params, &p) == nil && p.Update != nil {
		u.fields = p.Update
		return p.SessionID, u, true
	}
	var loose struct {
		SessionID string          `json:"sessionId"`
		Update    json.RawMessage `json:"update"`
	}
	if json.Unmarshal(params, &loose) != nil || !present(loose.Update) {
		return "", nil, false
	}
	u.raw = loose.Update
	return loose.SessionID, u, true
}

// updateHandler gives the handler of a known update kind; nil for an
// unknown kind. Fields a known kind does not define are tolerated, not
// reported (docs/harness.md#the-session): agents add their own (Claude
// Code's first tool_call carries a "name"), and an unknown item for each
// would flood the conversation.
func (c *Client) updateHandler(kind string) func(*update) error {
	switch kind {
	case "agent_message_chunk":
		return c.onAgentChunk
	case "agent_thought_chunk":
		return c.onThoughtChunk
	case "user_message_chunk":
		return c.onUserChunk
	case "tool_call":
		return c.onToolCall
	case "tool_call_update":
		return c.onToolCallUpdate
	case "plan":
		return c.onPlan
	case "available_commands_update":
		return c.onCommands
	case "current_mode_update":
		return c.onCurrentMode
	case "config_option_update":
		return c.onConfigUpdate
	case "session_info_update":
		return c.onSessionInfo
	case "usage_update":
		return c.onUsageUpdate
	}
	return nil
}

func (c *Client) onNotification(m *incoming, raw []byte) {
	if c.opts.Cursor && strings.HasPrefix(m.Method, cursorPrefix) {
		if handled, err := c.cursorMessage(m); !handled || err != nil {
			if err != nil {
				c.emit(notice(fmt.Sprintf("the agent's %s is not understood: %v", m.Method, err)))
			}
			c.emit(unknown(raw))
		}
		return
	}
	if m.Method != methodSessionUpdate {
		c.emit(unknown(raw))
		return
	}
	sessionID, u, ok := decodeUpdate(m.Params)
	if !ok {
		c.emit(notice("the agent sent a session/update without an update"), unknown(raw))
		return
	}
	c.routeUpdate(sessionID, u)
}

// routeUpdate handles an update of the session, keeps one for a session id
// not yet known, and reports one for another session.
func (c *Client) routeUpdate(sessionID string, u *update) {
	switch {
	case c.session.id != "" && sessionID == c.session.id:
		c.replaying = c.session.loading
		c.handleUpdate(u)
		c.replaying = false
	case c.phase < phaseReady:
		c.buffer(u.params)
	default:
		c.emit(unknown(u.params))
	}
}

func (c *Client) buffer(params json.RawMessage) {
	if c.session.buffered == nil {
		c.session.buffered = bqueue.New[json.RawMessage](c.opts.maxBuffered(), bqueue.DropOldest)
	}
	if oldest, dropped, _ := c.session.buffered.Push(params); dropped {
		c.emit(unknown(oldest))
	}
}

func (c *Client) replayBuffered() {
	if c.session.buffered == nil {
		return
	}
	waiting := c.session.buffered.Drain()
	for _, params := range waiting {
		if sessionID, u, ok := decodeUpdate(params); ok {
			c.routeUpdate(sessionID, u)
		}
	}
}

func (c *Client) handleUpdate(u *update) {
	kind := u.kind()
	handle := c.updateHandler(kind)
	if handle == nil {
		c.emit(unknown(u.rawUpdate()))
		return
	}
	if err := handle(u); err != nil {
		c.emit(notice(fmt.Sprintf("the agent's %s update is not understood: %v", kind, err)), unknown(u.rawUpdate()))
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func (c *Client) onPlan(u *update) error {
	var v struct {
		Entries json.RawMessage `json:"entries"`
	}
	if err := u.decode(&v); err != nil {
		return err
	}
	c.emit(Item{Type: TypePlan, Entries: v.Entries})
	return nil
}

func (c *Client) onCommands(u *update) error {
	var v struct {
		AvailableCommands json.RawMessage `json:"availableCommands"`
	}
	if err := u.decode(&v); err != nil {
		return err
	}
	c.emit(Item{Type: TypeCommands, Commands: v.AvailableCommands})
	return nil
}

func (c *Client) onSessionInfo(u *update) error {
	var v struct {
		Title *string `json:"title"`
	}
	if err := u.decode(&v); err != nil {
		return err
	}
	c.emit(Item{Type: TypeSessionInfo, SessionID: c.session.id, Title: deref(v.Title)})
	return nil
}

func (c *Client) onUsageUpdate(u *update) error {
	var v ContextUsage
	if err := u.decode(&v); err != nil {
		return err
	}
	if c.turn.running {
		c.turn.context = &v
	}
	c.emit(Item{Type: TypeUsage, Context: &v})
	return nil
}
