package acp

import (
	"encoding/json"
	"fmt"
)

// updateParams is the envelope of session/update.
type updateParams struct {
	SessionID string          `json:"sessionId"`
	Update    json.RawMessage `json:"update"`
}

// updateKind reads the discriminator of an update.
type updateKind struct {
	SessionUpdate string `json:"sessionUpdate"`
}

// updateHandler gives the handler of a known update kind and the fields ACP
// defines for it ("_meta" and "sessionUpdate" are always known); nil for an
// unknown kind.
func (c *Client) updateHandler(kind string) (handle func(json.RawMessage) error, fields []string) {
	chunk := []string{"content", "messageId"}
	tool := []string{"toolCallId", "title", "kind", "status", "content", "locations", "rawInput", "rawOutput"}
	switch kind {
	case "agent_message_chunk":
		return c.onAgentChunk, chunk
	case "agent_thought_chunk":
		return c.onThoughtChunk, chunk
	case "user_message_chunk":
		return c.onUserChunk, chunk
	case "tool_call":
		return c.onToolCall, tool
	case "tool_call_update":
		return c.onToolCallUpdate, tool
	case "plan":
		return c.onPlan, []string{"entries"}
	case "available_commands_update":
		return c.onCommands, []string{"availableCommands"}
	case "current_mode_update":
		return c.onCurrentMode, []string{"currentModeId"}
	case "config_option_update":
		return c.onConfigUpdate, []string{"configOptions"}
	case "session_info_update":
		return c.onSessionInfo, []string{"title", "updatedAt"}
	case "usage_update":
		return c.onUsageUpdate, []string{"used", "size", "cost"}
	}
	return nil, nil
}

func (c *Client) onNotification(m *incoming, raw []byte) {
	if m.Method != "session/update" {
		c.emit(unknown(raw))
		return
	}
	var p updateParams
	if err := json.Unmarshal(m.Params, &p); err != nil || len(p.Update) == 0 {
		c.emit(notice("the agent sent a session/update without an update"), unknown(raw))
		return
	}
	c.routeUpdate(p, m.Params)
}

// routeUpdate handles an update of the session, keeps one for a session id
// not yet known, and reports one for another session.
func (c *Client) routeUpdate(p updateParams, params json.RawMessage) {
	switch {
	case c.session.id != "" && p.SessionID == c.session.id:
		c.replaying = c.session.loading
		c.handleUpdate(p.Update)
		c.replaying = false
	case c.phase < phaseReady:
		c.buffer(params)
	default:
		c.emit(unknown(params))
	}
}

func (c *Client) buffer(params json.RawMessage) {
	if len(c.session.buffered) >= c.opts.maxBuffered() {
		c.emit(unknown(c.session.buffered[0]))
		c.session.buffered = c.session.buffered[1:]
	}
	c.session.buffered = append(c.session.buffered, params)
}

func (c *Client) replayBuffered() {
	waiting := c.session.buffered
	c.session.buffered = nil
	for _, params := range waiting {
		var p updateParams
		_ = json.Unmarshal(params, &p) // it decoded when it was buffered
		c.routeUpdate(p, params)
	}
}

func (c *Client) handleUpdate(update json.RawMessage) {
	var k updateKind
	_ = json.Unmarshal(update, &k) // an object without a kind is unknown below
	handle, fields := c.updateHandler(k.SessionUpdate)
	if handle == nil {
		c.emit(unknown(update))
		return
	}
	if err := handle(update); err != nil {
		c.emit(notice(fmt.Sprintf("the agent's %s update is not understood: %v", k.SessionUpdate, err)), unknown(update))
		return
	}
	if hasUnknownFields(update, fields) {
		c.emit(unknown(update))
	}
}

func hasUnknownFields(update json.RawMessage, known []string) bool {
	var fields map[string]json.RawMessage
	if json.Unmarshal(update, &fields) != nil {
		return true
	}
	for name := range fields {
		if name != "_meta" && name != "sessionUpdate" && !contains(known, name) {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func (c *Client) onPlan(raw json.RawMessage) error {
	var u struct {
		Entries json.RawMessage `json:"entries"`
	}
	if err := json.Unmarshal(raw, &u); err != nil {
		return err
	}
	c.emit(Item{Type: TypePlan, Entries: u.Entries})
	return nil
}

func (c *Client) onCommands(raw json.RawMessage) error {
	var u struct {
		AvailableCommands json.RawMessage `json:"availableCommands"`
	}
	if err := json.Unmarshal(raw, &u); err != nil {
		return err
	}
	c.emit(Item{Type: TypeCommands, Commands: u.AvailableCommands})
	return nil
}

func (c *Client) onSessionInfo(raw json.RawMessage) error {
	var u struct {
		Title *string `json:"title"`
	}
	if err := json.Unmarshal(raw, &u); err != nil {
		return err
	}
	it := Item{Type: TypeSessionInfo, SessionID: c.session.id}
	if u.Title != nil {
		it.Title = *u.Title
	}
	c.emit(it)
	return nil
}

func (c *Client) onUsageUpdate(raw json.RawMessage) error {
	var u ContextUsage
	if err := json.Unmarshal(raw, &u); err != nil {
		return err
	}
	c.emit(Item{Type: TypeUsage, Context: &u})
	return nil
}
