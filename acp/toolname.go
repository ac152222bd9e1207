package acp

import (
	"encoding/json"
	"strings"
)

// ACP tool kinds (ToolKind).
const (
	kindRead       = "read"
	kindEdit       = "edit"
	kindDelete     = "delete"
	kindMove       = "move"
	kindSearch     = "search"
	kindExecute    = "execute"
	kindThink      = "think"
	kindFetch      = "fetch"
	kindSwitchMode = "switch_mode"
)

// toolFacts is what a tool call has told of its tool so far.
type toolFacts struct {
	Kind, Title string
	Meta        json.RawMessage // the latest _meta that names the tool
	Input       json.RawMessage // rawInput
	Diffs       []Diff          // the latest diffs of its content
}

// namer names tool calls by the rules of docs/harness.md#tool-names.
type namer struct {
	agent         string            // key of _meta.<agent>.toolCall.toolName
	tools         map[string]string // acp.tools
	subagentTools []string
}

// name gives the app's tool name and the agent's own name of the tool: by
// what says which tool it is (definite), else by its title.
func (n namer) name(f toolFacts) (app, agent string) {
	if app, agent := n.definite(f); app != "" {
		return app, agent
	}
	return n.byTitle(f)
}

// definite names a tool by what says which tool it is: the agent's own
// name in _meta when acp.tools maps it (Claude Code's own names are the
// app's names), else the ACP kind. The latest update that says it wins.
func (n namer) definite(f toolFacts) (app, agent string) {
	if own, claude := metaToolName(f.Meta, n.agent); own != "" {
		if mapped, ok := n.tools[own]; ok {
			return mapped, own
		}
		if claude {
			return own, own
		}
	}
	return kindName(f), ""
}

// byTitle names a tool of kind other, none or unknown: the agent's own
// name (_meta, else the title's) through acp.tools, else its title.
func (n namer) byTitle(f toolFacts) (app, agent string) {
	own, _ := metaToolName(f.Meta, n.agent)
	agent = firstNonEmpty(own, titleToolName(f.Title))
	if mapped, ok := n.tools[agent]; ok && agent != "" {
		return mapped, agent
	}
	return strings.TrimSpace(f.Title), agent
}

func (n namer) startsSubagent(app, agent string) bool {
	return contains(n.subagentTools, app) || agent != "" && contains(n.subagentTools, agent)
}

// kindName maps the ACP kinds that say what the tool is.
func kindName(f toolFacts) string {
	switch f.Kind {
	case kindExecute:
		return "Bash"
	case kindEdit:
		if writesNewFile(f.Diffs) {
			return "Write"
		}
		return "Edit"
	case kindDelete:
		return "Delete"
	case kindMove:
		return "Move"
	case kindRead:
		return "Read"
	case kindSearch:
		if isNamePattern(f.Input) {
			return "Glob"
		}
		return "Grep"
	case kindFetch:
		return "WebFetch"
	case kindThink:
		return "Think"
	}
	return ""
}

func writesNewFile(diffs []Diff) bool {
	for _, d := range diffs {
		if d.OldText == nil {
			return true
		}
	}
	return false
}

// isNamePattern tells whether a search's input is a pattern over file names
// (Glob) rather than over contents (Grep): a "pattern" or "glob" that looks
// like a path glob (a wildcard, and a slash or a leading wildcard), with none
// of the keys of a content search.
func isNamePattern(input json.RawMessage) bool {
	var in map[string]any
	if json.Unmarshal(input, &in) != nil {
		return false
	}
	for _, key := range []string{"query", "regex", "output_mode", "content", "text"} {
		if _, ok := in[key]; ok {
			return false
		}
	}
	for _, key := range []string{"pattern", "glob"} {
		if s, ok := in[key].(string); ok && looksLikeGlob(s) {
			return true
		}
	}
	return false
}

func looksLikeGlob(s string) bool {
	if !strings.ContainsAny(s, "*?{[") {
		return false
	}
	return strings.Contains(s, "/") || strings.HasPrefix(s, "*") || strings.HasPrefix(s, "{")
}

// metaToolName reads the agent's own tool name from _meta:
// _meta.<agent>.toolCall.toolName, else _meta.claudeCode.toolName, where
// Claude Code's ACP adapter writes it (claude says which one it was).
func metaToolName(meta json.RawMessage, agent string) (name string, claude bool) {
	if !present(meta) {
		return "", false
	}
	var byAgent map[string]json.RawMessage
	if json.Unmarshal(meta, &byAgent) != nil {
		return "", false
	}
	if agent != "" {
		var m struct {
			ToolCall struct {
				ToolName string `json:"toolName"`
			} `json:"toolCall"`
		}
		if json.Unmarshal(byAgent[agent], &m) == nil && strings.TrimSpace(m.ToolCall.ToolName) != "" {
			return strings.TrimSpace(m.ToolCall.ToolName), false
		}
	}
	var cc struct {
		ToolName string `json:"toolName"`
	}
	if json.Unmarshal(byAgent[claudeCodeMeta], &cc) == nil && strings.TrimSpace(cc.ToolName) != "" {
		return strings.TrimSpace(cc.ToolName), true
	}
	return "", false
}

// claudeCodeMeta is the _meta key of Claude Code's ACP adapter
// (@agentclientprotocol/claude-agent-acp): {"claudeCode":{"toolName":"Write"}}.
const claudeCodeMeta = "claudeCode"

// titleToolName reads a tool name from a title: the text before the first
// "·", trimmed, and after its last ": " when it holds one (Goose writes
// "developer: shell · ls -la").
func titleToolName(title string) string {
	head, _, _ := strings.Cut(title, "·")
	head = strings.TrimSpace(head)
	if i := strings.LastIndex(head, ": "); i >= 0 {
		head = strings.TrimSpace(head[i+len(": "):])
	}
	return head
}
