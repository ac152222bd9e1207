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

// toolFacts is what a tool call tells of its tool when it first appears.
type toolFacts struct {
	Kind, Title string
	Meta        json.RawMessage // the call's _meta
	Input       json.RawMessage // rawInput
	Diffs       []Diff
}

// namer names tool calls by the rules of docs/harness.md#tool-names.
type namer struct {
	agent         string            // key of _meta.<agent>.toolCall.toolName
	tools         map[string]string // acp.tools
	subagentTools []string
}

// name gives the app's tool name and the agent's own name of the tool ("" for
// a known kind). A tool of kind other, none or unknown that acp.tools does
// not map is shown by its title.
func (n namer) name(f toolFacts) (app, agent string) {
	if app := kindName(f); app != "" {
		return app, ""
	}
	agent = firstNonEmpty(metaToolName(f.Meta, n.agent), titleToolName(f.Title))
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

// metaToolName reads _meta.<agent>.toolCall.toolName.
func metaToolName(meta json.RawMessage, agent string) string {
	if agent == "" || !present(meta) {
		return ""
	}
	var byAgent map[string]json.RawMessage
	if json.Unmarshal(meta, &byAgent) != nil {
		return ""
	}
	var m struct {
		ToolCall struct {
			ToolName string `json:"toolName"`
		} `json:"toolCall"`
	}
	if json.Unmarshal(byAgent[agent], &m) != nil {
		return ""
	}
	return strings.TrimSpace(m.ToolCall.ToolName)
}

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
