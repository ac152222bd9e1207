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
