package acp

import (
	"encoding/json"
	"fmt"
)

// streamState gives consecutive chunks of one kind the same message id when
// the agent gives none.
type streamState struct {
	kind      string // item type of the message being streamed; "" when broken
	id        string
	fromAgent bool
	seq       int
}

// breaksMessage tells whether an item of this type ends the message being
// streamed: text after a tool call is a new message.
func breaksMessage(itemType string) bool {
	switch itemType {
	case TypeSession, TypeTool, TypeToolDone, TypePermission, TypeQuestion, TypeTurn, TypePlan, TypeUser:
		return true
	}
	return false
}

type chunkUpdate struct {
	Content   json.RawMessage `json:"content"`
	MessageID *string         `json:"messageId"`
}

type contentBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func (c *Client) onAgentChunk(raw json.RawMessage) error   { return c.onChunk(TypeText, raw) }
func (c *Client) onThoughtChunk(raw json.RawMessage) error { return c.onChunk(TypeThinking, raw) }
func (c *Client) onUserChunk(raw json.RawMessage) error    { return c.onChunk(TypeUser, raw) }

func (c *Client) onChunk(kind string, raw json.RawMessage) error {
	var u chunkUpdate
	if err := json.Unmarshal(raw, &u); err != nil {
		return err
	}
	var block contentBlock
	if err := json.Unmarshal(u.Content, &block); err != nil {
		return fmt.Errorf("content: %w", err)
	}
	given := ""
	if u.MessageID != nil {
		given = *u.MessageID
	}
	switch block.Type {
	case "text":
		c.chunkText(kind, c.messageID(kind, given), block.Text)
	case "image", "audio", "resource_link", "resource":
		c.emit(Item{Type: kind, MessageID: c.messageID(kind, given), Content: u.Content})
	default:
		c.emit(unknown(raw))
	}
	return nil
}

func (c *Client) chunkText(kind, id, text string) {
	if kind == TypeText && c.opts.QuestionsInText && !c.replaying {
		c.scanForQuestion(id, text)
		return
	}
	c.emitText(kind, id, text)
}

func (c *Client) emitText(kind, id, text string) {
	if text != "" {
		c.emit(Item{Type: kind, MessageID: id, Text: text})
	}
}

// messageID gives the id of the message a chunk belongs to: the agent's, or
// one made up for a run of chunks of one kind.
func (c *Client) messageID(kind, given string) string {
	if given != "" {
		c.stream.kind, c.stream.id, c.stream.fromAgent = kind, given, true
		return given
	}
	if c.stream.kind != kind || c.stream.fromAgent {
		c.stream.seq++
		c.stream.kind, c.stream.id, c.stream.fromAgent = kind, fmt.Sprintf("m%d", c.stream.seq), false
	}
	return c.stream.id
}
