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

type contentBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func (c *Client) onAgentChunk(u *update) error   { return c.onChunk(TypeText, u) }
func (c *Client) onThoughtChunk(u *update) error { return c.onChunk(TypeThinking, u) }
func (c *Client) onUserChunk(u *update) error    { return c.onChunk(TypeUser, u) }

// onChunk reads the chunk's fields one by one: a chunk may be a line of
// many megabytes, and each decoding is a pass over it.
func (c *Client) onChunk(kind string, u *update) error {
	content := u.fields["content"]
	var block contentBlock
	if err := json.Unmarshal(content, &block); err != nil {
		return fmt.Errorf("content: %w", err)
	}
	var given *string
	if err := json.Unmarshal(orNull(u.fields["messageId"]), &given); err != nil {
		return fmt.Errorf("messageId: %w", err)
	}
	id := c.messageID(kind, deref(given))
	switch block.Type {
	case "text":
		c.chunkText(kind, id, block.Text)
	case "image", "audio", "resource_link", "resource":
		c.emit(Item{Type: kind, MessageID: id, Content: content})
	default:
		c.emit(unknown(u.rawUpdate()))
	}
	return nil
}

func orNull(v json.RawMessage) json.RawMessage {
	if len(v) == 0 {
		return json.RawMessage("null")
	}
	return v
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
