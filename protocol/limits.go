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

// The sizes of a module's network answers (docs/protocol.md#netfetch):
// the largest body a net/fetch answer carries, whatever
// limits.netMaxBytes says (the answer is one line of at most 8 MiB, and 4
// MiB of body is 5.33 MiB in base64, which leaves room for the headers),
// and the most limits.netMaxBytes gives net/stream. The install window
// says them, so they are here rather than in services/net alone.
const (
	MaxFetchBytes  = 4 << 20
	MaxNetMaxBytes = 64 << 20
)
