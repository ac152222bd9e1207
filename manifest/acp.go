package manifest

import (
	"encoding/json"
	"slices"
)

// ACP says how the host runs a described harness's agent over the Agent
// Client Protocol (docs/harness.md). Nil and empty fields mean the documented
// defaults; members this package does not know are kept in Extra.
type ACP struct {
	Args      []string          `json:"args,omitempty"`
	Env       map[string]string `json:"env,omitempty"`       // never a secret: a manifest is readable
	RemoveEnv []string          `json:"removeEnv,omitempty"` // the app's variables it must not receive

	// ClientFS is fs as written; FS applies its default.
	ClientFS *bool `json:"fs,omitempty"`

	Modes           map[string]string `json:"modes,omitempty"` // app mode → ACP mode
	ReadOnlyMode    string            `json:"readOnlyMode,omitempty"`
	ModelOption     string            `json:"modelOption,omitempty"`
	QuestionsInText bool              `json:"questionsInText,omitempty"`
	Tools           map[string]string `json:"tools,omitempty"` // its tool name → the app's
	SubagentTools   []string          `json:"subagentTools,omitempty"`
	Extensions      []string          `json:"extensions,omitempty"`

	Extra map[string]json.RawMessage `json:"-"`
}

// ExtensionCursor names Cursor CLI's cursor/* ACP extensions.
const ExtensionCursor = "cursor"

// FS reports whether the agent reads and writes files through the client
// (fs/read_text_file, fs/write_text_file): fs, true when not given.
func (a *ACP) FS() bool { return a.ClientFS == nil || *a.ClientFS }

// HasExtension reports whether the agent speaks the ACP extension name.
func (a *ACP) HasExtension(name string) bool { return slices.Contains(a.Extensions, name) }

type acpFields ACP

// UnmarshalJSON reads the object by exact member names, keeping the others.
func (a *ACP) UnmarshalJSON(data []byte) error {
	var f acpFields
	extra, err := decodeExact(data, &f)
	if err != nil {
		return err
	}
	*a = ACP(f)
	a.Extra = extra
	return nil
}

// MarshalJSON writes the object with the members it was read with.
func (a ACP) MarshalJSON() ([]byte, error) {
	return encodeWithExtra(acpFields(a), a.Extra)
}
