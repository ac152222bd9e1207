// Package protocol reads the plugin protocol's schema,
// schemas/plugin-protocol-1.json, and answers from it alone: which methods
// exist, who calls whom, which are notifications, which only WASM plugins
// get, the error codes each may answer, the delay of each host→plugin call,
// and whether a call's params or result hold. The schema is the one source
// of truth; nothing here repeats a method name, a shape or a delay.
//
// The protocol's numbers (limits.go: TurnLimit, QueueSize, MaxRestarts
// and CrashWindow, JournalRotateBytes…) are the schema's x-limits too,
// typed and named by their rule; every package that applies one takes its
// default from here, and docs/protocol.md#numbers lists them, held to
// these constants by a test.
//
// A method entry is either an exact name ("secrets/get") or a prefix pattern
// ending in "/*" ("permissions/*", "event/*"); Lookup tries exact names first,
// then the longest matching pattern. A pattern needs at least one character
// after its slash: "permissions/" alone matches nothing.
//
// Decisions this package makes where the spec is silent:
//   - Params omitted from a request (JSON-RPC allows it), or null (which
//     JSON-RPC forbids but encoders write for a nil value), are validated as
//     an empty object: settings/get with no params holds, secrets/get with
//     none fails naming "/key". An absent result is validated as null.
//   - Validation errors are reduced to one field: the deepest failing JSON
//     pointer (a missing or unknown member counts as one level below its
//     object), ties broken by pointer order so the answer never varies.
//   - Durations print in the largest unit that holds them whole: 300 ms,
//     1500 ms, 5 s, 90 s, 1 min. Sub-millisecond parts print as decimals of
//     a millisecond (0.5 ms).
//
// The schema is embedded (package schemas) and compiled once, at first use.
// A schema that does not load is a defect of the build, caught by this
// package's tests; at run time it panics rather than serve a partial table.
//
// Example:
//
//	if err := protocol.ValidateParams("secrets/get", params); err != nil {
//		// answer -32602 with err.Error(), e.g. "params/key: is required"
//	}
//	d := protocol.Delay("permissions/ask") // 500 ms
//	log.Printf("%s: no answer within %s", method, protocol.FormatDuration(d))
package protocol
