package protocol

import "time"

// Limits of a module's instance, run.wasm and run.js alike
// (docs/protocol.md#limits): its linear memory, and the time of one turn,
// shorter while it holds a decision an agent waits for (a permissions/…
// call).
const (
	ModuleMemory      = 64 << 20
	TurnLimit         = 2 * time.Second
	DecisionTurnLimit = 500 * time.Millisecond
)
