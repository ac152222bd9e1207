package harness

import (
	"encoding/json"
	"time"

	"github.com/escouade-dev/escouade-plugin/acp"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/registry"
)

// Defaults used where an Options field is left at its zero value.
const (
	DefaultAgent          = "agent"
	DefaultMode           = ModeDefault
	DefaultCancelGrace    = 10 * time.Second
	DefaultCloseGrace     = 2 * time.Second
	DefaultVersionTimeout = 5 * time.Second
	DefaultDrainGrace     = time.Second
	// DefaultMaxLineBytes leaves room over the 20 MiB lines an agent may
	// write (a whole file read back, a long diff).
	DefaultMaxLineBytes = 32 << 20
	// DefaultMaxDiffBytes bounds the file read from disk to build a
	// permission card's diff.
	DefaultMaxDiffBytes = 8 << 20
)

// App modes the permission policy knows (docs/harness.md#permissions-and-the-app-mode).
const (
	ModeDefault           = "default"
	ModeAcceptEdits       = "acceptEdits"
	ModeBypassPermissions = "bypassPermissions"
)

// MCPServer is what a session needs of the host's MCP server (package
// harness/mcp): a bearer token per agent and the mcpServers entries that
// carry it.
type MCPServer interface {
	NewToken(agent string) string
	Revoke(agent string)
	HTTPEntry(agent string) json.RawMessage
	StdioEntry(agent, exe string) json.RawMessage
}

// Options configure a Session. Manifest and Cwd are required; every other
// zero value means the documented default.
type Options struct {
	// Manifest is the plugin's; Harness picks its entry, the first
	// described harness when empty.
	Manifest *manifest.Manifest
	Harness  string
	// Home is Escouade's home (registry.DefaultHome() when empty), whose
	// record of installed plugins Admit reads.
	Home string
	// Admit is asked before the agent's program is launched; nil is
	// registry.Admit of Home: the plugin must be installed from the
	// manifest's folder, and that folder be what the person consented to.
	// registry.AnyFolder launches a folder the person runs themselves.
	Admit func(*manifest.Manifest) error

	// Agent names the agent: its MCP token, its conversation in Store.
	// DefaultAgent when empty.
	Agent string
	// Cwd is the agent's folder; Fences are the private projects' folders.
	Cwd    string
	Fences []string

	// Mode is the app mode (DefaultMode when empty); Model the model id.
	Mode  string
	Model string

	// AccountDir is given in the harness's accountVar when not empty.
	AccountDir string
	// Env is the app's environment; os.Environ() when nil.
	Env []string
	// Lang is the app language, "en" (default) or "fr".
	Lang string
	// AppVersion is the clientInfo.version sent to the agent.
	AppVersion string

	// MCP gives the session the host's MCP server when not nil; Executable
	// is the host's binary for its stdio form (os.Executable() when empty).
	MCP        MCPServer
	Executable string

	// SessionID re-attaches to an earlier ACP session; when empty and Store
	// knows the agent, its last session id is used.
	SessionID string
	// Store keeps the agent and its conversation; nil keeps nothing.
	Store *Store

	// OnItem receives every conversation item, in order.
	OnItem func(acp.Item)
	// Stderr receives the agent's stderr lines.
	Stderr func(line string)

	CancelGrace    time.Duration // DefaultCancelGrace when zero
	CloseGrace     time.Duration // DefaultCloseGrace when zero
	VersionTimeout time.Duration // DefaultVersionTimeout when zero
	DrainGrace     time.Duration // stdout after exit; DefaultDrainGrace when zero
	MaxLineBytes   int           // DefaultMaxLineBytes when zero
	MaxDiffBytes   int64         // DefaultMaxDiffBytes when zero
}

// admit is Admit, or the home's record of consents.
func (o Options) admit(m *manifest.Manifest) error {
	if o.Admit != nil {
		return o.Admit(m)
	}
	home := o.Home
	if home == "" {
		home = registry.DefaultHome()
	}
	return registry.Admit(home, m)
}

func (o Options) withDefaults() Options {
	o.Agent = or(o.Agent, DefaultAgent)
	o.Mode = or(o.Mode, DefaultMode)
	o.Lang = or(o.Lang, "en")
	o.CancelGrace = or(o.CancelGrace, DefaultCancelGrace)
	o.CloseGrace = or(o.CloseGrace, DefaultCloseGrace)
	o.VersionTimeout = or(o.VersionTimeout, DefaultVersionTimeout)
	o.DrainGrace = or(o.DrainGrace, DefaultDrainGrace)
	o.MaxLineBytes = or(o.MaxLineBytes, DefaultMaxLineBytes)
	o.MaxDiffBytes = or(o.MaxDiffBytes, DefaultMaxDiffBytes)
	if o.OnItem == nil {
		o.OnItem = func(acp.Item) {}
	}
	return o
}

func or[T comparable](v, fallback T) T {
	var zero T
	if v == zero {
		return fallback
	}
	return v
}
