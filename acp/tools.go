package acp

import (
	"encoding/json"
	"errors"
	"slices"
)

// Tool call statuses that end a call.
const (
	statusCompleted = "completed"
	statusFailed    = "failed"
)

// toolCallFields are the fields of tool_call, tool_call_update and the
// toolCall of a permission request.
type toolCallFields struct {
	ToolCallID string          `json:"toolCallId"`
	Title      *string         `json:"title"`
	Kind       *string         `json:"kind"`
	Status     *string         `json:"status"`
	Content    json.RawMessage `json:"content"`
	Locations  json.RawMessage `json:"locations"`
	RawInput   json.RawMessage `json:"rawInput"`
	RawOutput  json.RawMessage `json:"rawOutput"`
	Meta       json.RawMessage `json:"_meta"`
}

func (f *toolCallFields) status() string { return deref(f.Status) }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// trackedTool is what the client remembers of a tool call.
type trackedTool struct {
	id, name, agentName, title, kind string
	input                            json.RawMessage
	meta                             json.RawMessage // the latest _meta that named the tool
	diffs                            []Diff          // the latest diffs of its content
	parent                           string
	switchMode, done                 bool
}

func (tool *trackedTool) facts() toolFacts {
	return toolFacts{Kind: tool.kind, Title: tool.title, Meta: tool.meta, Input: tool.input, Diffs: tool.diffs}
}

// toolState follows the tool calls of the session and the sub-agents running.
type toolState struct {
	byID      map[string]*trackedTool
	subagents []string // ids of the running sub-agent calls, latest last
}

func newToolState() toolState { return toolState{byID: map[string]*trackedTool{}} }

// describe gives the tool call f speaks of, creating it the first time,
// with what f adds to it: its name follows the latest update that says
// which tool it is (docs/harness.md#tool-names).
func (t *toolState) describe(f *toolCallFields, n namer) *trackedTool {
	tool, ok := t.byID[f.ToolCallID]
	if !ok {
		tool = t.create(f)
	}
	tool.learn(f, n)
	t.rename(tool, n)
	return tool
}

// learn keeps what an update says of its tool; what it leaves out stays.
func (tool *trackedTool) learn(f *toolCallFields, n namer) {
	if f.Title != nil {
		tool.title = *f.Title
	}
	if k := deref(f.Kind); k != "" {
		tool.kind = k
	}
	if present(f.RawInput) {
		tool.input = f.RawInput
	}
	if diffs := diffsOf(f.Content); len(diffs) > 0 {
		tool.diffs = diffs
	}
	if own, _ := metaToolName(f.Meta, n.agent); own != "" {
		tool.meta = f.Meta
	}
}

// rename names the call by what it has said so far: a definite name (the
// agent's own, or the kind) replaces the one before; a name by title is
// found once.
func (t *toolState) rename(tool *trackedTool, n namer) {
	if app, agent := n.definite(tool.facts()); app != "" {
		tool.name, tool.agentName = app, agent
	} else if tool.name == "" {
		tool.name, tool.agentName = n.byTitle(tool.facts())
	}
	if tool.name != "" && !tool.done && n.startsSubagent(tool.name, tool.agentName) && !slices.Contains(t.subagents, tool.id) {
		t.subagents = append(t.subagents, tool.id)
	}
}

func (t *toolState) create(f *toolCallFields) *trackedTool {
	kind := deref(f.Kind)
	tool := &trackedTool{id: f.ToolCallID, kind: kind, switchMode: kind == kindSwitchMode}
	if len(t.subagents) > 0 {
		tool.parent = t.subagents[len(t.subagents)-1]
	}
	t.byID[tool.id] = tool
	return tool
}

// finish ends a call: a sub-agent it started is no longer running.
func (t *toolState) finish(tool *trackedTool) {
	tool.done = true
	t.subagents = slices.DeleteFunc(t.subagents, func(id string) bool { return id == tool.id })
}

func (c *Client) namer() namer {
	return namer{agent: firstNonEmpty(c.opts.AgentName, c.agent.name), tools: c.opts.Tools, subagentTools: c.opts.SubagentTools}
}

func decodeToolCall(u *update) (*toolCallFields, error) {
	var f toolCallFields
	if err := u.decode(&f); err != nil {
		return nil, err
	}
	if f.ToolCallID == "" {
		return nil, errors.New("no toolCallId")
	}
	return &f, nil
}

func (c *Client) onToolCall(u *update) error {
	f, err := decodeToolCall(u)
	if err != nil {
		return err
	}
	tool := c.tools.describe(f, c.namer())
	if tool.switchMode {
		c.emit(Item{Type: TypeMode, ID: tool.id, Title: tool.title, Mode: modeOf(tool.input), Input: tool.input})
		return nil
	}
	c.emitTool(tool, f)
	if s := f.status(); s == statusCompleted || s == statusFailed {
		c.toolDone(tool, f)
	}
	return nil
}

func (c *Client) onToolCallUpdate(u *update) error {
	f, err := decodeToolCall(u)
	if err != nil {
		return err
	}
	tool := c.tools.describe(f, c.namer())
	if !tool.switchMode {
		c.toolProgress(tool, f)
	}
	return nil
}

// toolProgress gives a tool item, or a toolDone item when the call ended.
func (c *Client) toolProgress(tool *trackedTool, f *toolCallFields) {
	if s := f.status(); s == statusCompleted || s == statusFailed {
		c.toolDone(tool, f)
		return
	}
	c.emitTool(tool, f)
}

// emitTool gives the call as it stands: a first sight or an update, which
// the app merges by id.
func (c *Client) emitTool(tool *trackedTool, f *toolCallFields) {
	c.emit(Item{
		Type: TypeTool, ID: tool.id, Name: tool.name, Title: tool.title, Kind: tool.kind,
		Status: f.status(), Input: f.RawInput, Parent: tool.parent,
		Locations: pathsOf(f.Locations), Content: nonNull(f.Content), Diffs: diffsOf(f.Content),
	})
}

func (c *Client) toolDone(tool *trackedTool, f *toolCallFields) {
	c.tools.finish(tool)
	it := Item{
		Type: TypeToolDone, ID: tool.id, Name: tool.name, Title: tool.title, Status: f.status(),
		Parent: tool.parent, Output: firstRaw(f.RawOutput, f.Content),
		Locations: pathsOf(f.Locations), Diffs: diffsOf(f.Content),
	}
	if f.status() == statusFailed {
		it.Error = firstNonEmpty(contentText(f.Content), statusFailed)
	}
	c.emit(it)
}

func nonNull(v json.RawMessage) json.RawMessage {
	if !present(v) {
		return nil
	}
	return v
}

// modeOf reads the mode a switch_mode call asks for from its input.
func modeOf(input json.RawMessage) string {
	var in map[string]any
	_ = json.Unmarshal(input, &in) // an input that is not an object names no mode
	for _, key := range []string{"mode", "modeId", "mode_id"} {
		if s, ok := in[key].(string); ok {
			return s
		}
	}
	return ""
}
