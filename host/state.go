package host

import "github.com/escouade-dev/escouade-plugin/transport"

// State is where a plugin stands.
type State string

const (
	StateIdle       State = "idle"       // not started yet (waits for its activation)
	StateStarting   State = "starting"   // its program starts; waiting for initialize
	StateReady      State = "ready"      // initialize answered; calls go through
	StateRestarting State = "restarting" // it crashed and starts again
	StateStopped    State = "stopped"    // stopped for a reason; Restart starts it
	StateDisabled   State = "disabled"   // switched off by the user
)

// Status is a plugin's state as the app and the CLI show it.
type Status struct {
	State  State  `json:"state"`
	Reason string `json:"reason"` // "" when there is nothing to say
	// Program names the program now, as its transport does; the zero ID
	// when none runs. How the app spells it is the app's.
	Program transport.ID `json:"-"`
	Crashes int          `json:"crashes"`
}
