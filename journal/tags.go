package journal

// Tags of journal lines (docs/protocol.md#11-the-journal). A plugin's `log` messages take
// LogTag(level) instead.
const (
	TagStart   = "start"
	TagReady   = "ready"
	TagStop    = "stop"
	TagCrash   = "crash"
	TagStderr  = "stderr"
	TagSecret  = "secret"
	TagRefused = "refused"
	TagTimeout = "timeout"
	TagLate    = "late"
	TagDropped = "dropped"
	TagMemory  = "memory"
	TagWASM    = "wasm"
	TagNet     = "net"
)

// LogTag is the tag of a plugin's `log` message at level: "log.info" for
// "info". The level is not checked here; the host validates params against
// the protocol schema before writing.
func LogTag(level string) string {
	return "log." + level
}
