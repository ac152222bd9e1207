package host

import (
	"encoding/json"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
)

// DefaultReason says why a call got the default answer instead of the
// plugin's. The app then applies its own default (a permission request goes
// to the user, as without a plugin).
type DefaultReason string

const (
	Answered   DefaultReason = ""            // the plugin answered
	TimedOut   DefaultReason = "timeout"     // no answer within the delay
	Crashed    DefaultReason = "crashed"     // the program crashed with the call under way
	Stopped    DefaultReason = "stopped"     // the plugin is stopped or disabled
	NotStarted DefaultReason = "not-started" // it has no program or no activation
	Dropped    DefaultReason = "dropped"     // dropped from a full queue
	Declined   DefaultReason = "declined"    // its initialize answer says it does not take it
)

// Outcome is what a call to a plugin gives: its result, its error, or the
// default answer with the reason.
type Outcome struct {
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *jsonrpc.Error  `json:"error,omitempty"`
	Default DefaultReason   `json:"default,omitempty"`
	Reason  string          `json:"reason,omitempty"`
}

// IsDefault reports whether the default answer applies.
func (o Outcome) IsDefault() bool { return o.Default != Answered }

func defaultOutcome(why DefaultReason, reason string) Outcome {
	return Outcome{Default: why, Reason: reason}
}
