package host

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
	PID    int    `json:"pid"`    // 0 when no process runs
	// Instance names the program now for the journal ("pid 4242",
	// "instance 3"); "" when none runs.
	Instance string `json:"instance,omitempty"`
	Crashes  int    `json:"crashes"`
}
