package manifest

import "slices"

// Activation entries (docs/protocol.md#1-the-manifest).
const (
	// ActivationOnCall starts the program at the first call the app makes
	// to it. It is implied whenever activation is not empty.
	ActivationOnCall = "onCall"
	// ActivationEventPrefix starts an entry naming a fact, as in
	// "event:ticket.column".
	ActivationEventPrefix = "event:"
)

// HasActivation reports whether anything can start the plugin's program. A
// plugin with run but no activation never runs.
func (m *Manifest) HasActivation() bool { return len(m.Activation) > 0 }

// Activates reports whether the fact named event (e.g. "ticket.column",
// without the "event:" prefix) is in the activation list.
func (m *Manifest) Activates(event string) bool {
	return event != "" && slices.Contains(m.Activation, ActivationEventPrefix+event)
}

// Harness returns the entry of contributes.harnesses with the given id.
func (m *Manifest) Harness(id string) (*Harness, bool) {
	return m.Contributes.Harness(id)
}
