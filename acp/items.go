package acp

import "encoding/json"

// Item types (docs/harness.md#conversation-items), plus commands, sessionInfo and config for the
// update kinds that page does not name, and fsRead/fsWrite for the host's files.
const (
	TypeSession     = "session"
	TypeText        = "text"
	TypeThinking    = "thinking"
	TypeUser        = "user"
	TypeTool        = "tool"
	TypeToolDone    = "toolDone"
	TypePlan        = "plan"
	TypeMode        = "mode"
	TypeModel       = "model"
	TypeUsage       = "usage"
	TypePermission  = "permission"
	TypeQuestion    = "question"
	TypeAnswered    = "answered"
	TypeNotice      = "notice"
	TypeTurn        = "turn"
	TypeClosed      = "closed"
	TypeUnknown     = "unknown"
	TypeCommands    = "commands"
	TypeSessionInfo = "sessionInfo"
	TypeConfig      = "config"
	TypeFSRead      = "fsRead"
	TypeFSWrite     = "fsWrite"
)

// StopError is the stop reason of a turn that ended without an ACP stop
// reason: the prompt failed or the agent stopped.
const StopError = "error"

// Item is one conversation item. Type says which fields are set; it
// marshals to the console protocol's JSON (docs/harness.md#the-json-console), "type" first.
type Item struct {
	Type    string `json:"type"`
	History bool   `json:"history,omitempty"` // replayed by session/load
	Request string `json:"request,omitempty"` // handle to answer (permission, question, fsRead, fsWrite)

	// session, sessionInfo, config
	SessionID     string          `json:"sessionId,omitempty"`
	Attach        string          `json:"attach,omitempty"` // new, load or resume
	Modes         json.RawMessage `json:"modes,omitempty"`
	Models        json.RawMessage `json:"models,omitempty"`
	ConfigOptions json.RawMessage `json:"configOptions,omitempty"`
	Title         string          `json:"title,omitempty"`

	// text, thinking, user, notice; the file text of fsWrite
	MessageID string          `json:"messageId,omitempty"`
	Text      string          `json:"text,omitempty"`
	Content   json.RawMessage `json:"content,omitempty"` // a non-text block, or a tool's content
	Files     []string        `json:"files,omitempty"`   // user: the files given with the prompt

	// tool, toolDone, permission
	ID        string          `json:"id,omitempty"`   // the tool call's id
	Name      string          `json:"name,omitempty"` // the app's tool name (docs/harness.md#tool-names)
	Kind      string          `json:"kind,omitempty"` // the ACP tool kind; for answered, the option's kind
	Status    string          `json:"status,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	Parent    string          `json:"parent,omitempty"`
	Locations []string        `json:"locations,omitempty"`
	Output    json.RawMessage `json:"output,omitempty"`
	Error     string          `json:"error,omitempty"`
	Diffs     []Diff          `json:"diffs,omitempty"`

	Description string             `json:"description,omitempty"` // permission
	Options     []PermissionOption `json:"options,omitempty"`     // permission
	Questions   []Question         `json:"questions,omitempty"`   // question
	Answers     [][]string         `json:"answers,omitempty"`     // answered (question)
	Option      string             `json:"option,omitempty"`      // answered (permission): optionId
	Outcome     string             `json:"outcome,omitempty"`     // answered: selected or cancelled

	Entries  json.RawMessage `json:"entries,omitempty"`  // plan
	Commands json.RawMessage `json:"commands,omitempty"` // commands
	Mode     string          `json:"mode,omitempty"`
	AppMode  string          `json:"appMode,omitempty"` // mode: the app's mode the agent's maps to, when one does
	Model    string          `json:"model,omitempty"`

	Context    *ContextUsage `json:"context,omitempty"` // usage
	Usage      *Usage        `json:"usage,omitempty"`   // turn
	StopReason string        `json:"stopReason,omitempty"`

	Path  string `json:"path,omitempty"` // fsRead, fsWrite
	Line  *int   `json:"line,omitempty"`
	Limit *int   `json:"limit,omitempty"`

	Raw json.RawMessage `json:"raw,omitempty"` // unknown
}

// Diff is a file change a tool made or asks to make; OldText nil is a new file.
type Diff struct {
	Path    string  `json:"path"`
	OldText *string `json:"oldText"`
	NewText string  `json:"newText"`
}

// PermissionOption is one answer the agent offers to a permission request.
// The app shows it by Kind (allow_once, allow_always, reject_once,
// reject_always), whatever its id and name.
type PermissionOption struct {
	ID   string `json:"optionId"`
	Name string `json:"name"`
	Kind string `json:"kind"`
}

// Usage counts a turn's tokens, as the prompt answer gives them.
type Usage struct {
	InputTokens       int `json:"inputTokens"`
	OutputTokens      int `json:"outputTokens"`
	TotalTokens       int `json:"totalTokens"`
	ThoughtTokens     int `json:"thoughtTokens,omitempty"`
	CachedReadTokens  int `json:"cachedReadTokens,omitempty"`
	CachedWriteTokens int `json:"cachedWriteTokens,omitempty"`
	// FromContext marks counts the prompt answer did not give: totalTokens
	// is then the context's used tokens of the turn's last usage_update.
	FromContext bool `json:"fromContext,omitempty"`
}

func (u *Usage) add(v Usage) {
	u.InputTokens += v.InputTokens
	u.OutputTokens += v.OutputTokens
	u.TotalTokens += v.TotalTokens
	u.ThoughtTokens += v.ThoughtTokens
	u.CachedReadTokens += v.CachedReadTokens
	u.CachedWriteTokens += v.CachedWriteTokens
}

// ContextUsage is the context window as usage_update gives it.
type ContextUsage struct {
	Used int             `json:"used"`
	Size int             `json:"size"`
	Cost json.RawMessage `json:"cost,omitempty"`
}

func notice(text string) Item { return Item{Type: TypeNotice, Text: text} }

func unknown(raw json.RawMessage) Item { return Item{Type: TypeUnknown, Raw: raw} }

// MarshalJSON writes the item as it is, plus "diff": the first of Diffs,
// the name docs/harness.md#tool-names gives it (a toolDone's or a card's diff).
func (it Item) MarshalJSON() ([]byte, error) {
	type plain Item // the same fields, without this method
	out := struct {
		plain
		Diff *Diff `json:"diff,omitempty"`
	}{plain: plain(it)}
	if len(it.Diffs) > 0 {
		out.Diff = &it.Diffs[0]
	}
	return json.Marshal(out)
}
