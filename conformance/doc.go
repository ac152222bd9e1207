// Package conformance is the bench behind `escouade-plugin test DIR`: it plays
// the host against a plugin's program and reports, check by check, what the
// protocol (docs/protocol.md) asks and what the program did.
//
// The bench drives the wire itself rather than through the host package: it
// has to see what a host forgives or hides, such as a non-JSON line on stdout,
// the shape of a batch answer, or an id re-typed on the way back. Example
// runs it on a folder and writes its report.
//
// # Checks
//
// They run in this order; a check whose ground failed (no valid manifest, no
// program, no handshake) is skipped, so a broken plugin fails the one check
// that names its fault.
//
//   - manifest: escouade-plugin.json holds (manifest.Load).
//   - activation: a plugin with run has an activation; without one the
//     host never starts it. The bench still plays the program.
//   - start: the program starts.
//   - initialize: answered within its delay (10 s) with protocolVersion 1 and
//     a result valid against the protocol schema.
//   - ids: ids come back byte for byte: a string id holding escaped quotes and
//     the integer 9007199254740993, which a float parser rounds.
//   - batch: a batch of two calls and a notification is answered by one array
//     line holding the answers of both calls.
//   - notification-batch: a batch of notifications only is answered by
//     nothing, not even []; the bench listens for Options.QuietWait (300 ms).
//     What comes in that window, an answer to no call or a line that is not
//     a message alike, counts against this check rather than stdout's: it is
//     the plugin's answer to that batch.
//   - concurrent: two calls written at once are both answered, each under its
//     own id, in whatever order. A bench cannot make a plugin slow, so it checks
//     what a host relies on: answers matched by id, not by position.
//   - unknown-method: a method the plugin does not serve is answered -32601.
//   - delay: a call with the shortest delay of the protocol, a decision
//     (permissions/escouade-bench, 500 ms), is answered in time; a result or
//     any error will do.
//   - scenario: <name>: one row per scenario of escouade-bench.json.
//   - host-requests: what the program asked of the host held: methods a
//     process is served, params valid against the schema, secrets and files
//     its permissions grant. The bench serves the requests as the host does
//     (package services) from fake data: every granted secret reads as
//     "bench-secret:<key>" unless escouade-bench.json gives a value, and
//     settings/get answers the "settings" of escouade-bench.json ({} when
//     none), as for a user who changed nothing. A module or a bundle is
//     also served what only modules are (timer/*, net/*, ws/*, fs/*,
//     proc/*), by the host's own services (Options.ModuleServices), its
//     manifest's permissions granted; a net/fetch of a URL the "fetch" of
//     escouade-bench.json gives is answered from there once the guard's URL
//     rules let it through. A missing file (-32005), a request that failed
//     on the way (-32004, as offline) and an unreachable keychain are not
//     faults: a host answers a correct plugin so too. A refusal met by a
//     scenario's call is counted on that scenario's row (or not at all when
//     the scenario expects its code), and the fix names the permission the
//     manifest has for it. A refusal the plugin handled (its scenario's call
//     then answered a result the scenario accepts) is said, not failed.
//   - memory: the resident memory of the program and all it started, once
//     idle; a failure only past Options.MemoryLimit (1024 MB).
//   - shutdown: answered within its delay (1 s), and the program exits by
//     itself within Options.ExitGrace (1 s) of its answer.
//   - children: nothing the program started is left running after it exited.
//   - stdout: every line the program wrote on stdout, for the whole run, was
//     a JSON-RPC message.
//
// The result of every call the bench makes to a method of the schema is
// checked against the schema's result shape, within that call's check.
// A check waiting for answers stops early once as many answers came under
// ids the bench never sent as answers are missing: the plugin re-typed or
// dropped the ids, and waiting out the delay would only repeat it.
//
// # One fault, one row
//
// Each fault is counted on the row of its cause, and the rows it disturbed
// are skipped, saying where it is counted (Result.FollowsFrom). A program
// that ends before shutdown fails the row during which it ended; the later
// rows are skipped ("the program crashed during <check>"), never failed
// with a broken pipe. A line that is not JSON is stdout's fault whenever it
// comes, and so is an error the program sends back to the bench's -32700
// for it: it is never taken as an answer a check waits for. A timed-out
// initialize whose answer comes once stdin is closed is named a buffered
// stdout. A wait cut short by foreign ids says how long it lasted.
//
// # Scenarios: escouade-bench.json
//
// A plugin may put escouade-bench.json beside its manifest:
//
//	{
//	  "secrets":  {"token": "a fake value"},
//	  "settings": {"channel": "#bench"},
//	  "scenarios": [
//	    {"name": "echo", "call": "tickets/echo", "params": {"text": "hi"},
//	     "expect": {"result": {"text": "hi"}}},
//	    {"name": "bad params", "call": "tickets/echo", "params": {},
//	     "expect": {"error": {"code": -32602}}}
//	  ]
//	}
//
// Each scenario is one call, played in order after the built-in probes, and
// must be answered within the call's delay. expect.result must equal the
// result as JSON values (member order and number spelling aside);
// expect.error.code must be the error's code, and expect.error.message, when
// given, its message. Without expect, any answer that is not an error passes.
// refused lists the refusals the call must meet ({"method", "code"?}), and
// then no other is accepted during it.
// Unknown members are refused, so a typo does not make a scenario pass
// silently. A refusal is a *BenchFileError: line, column, scenario, JSON
// pointer, what is wrong, the fix and the docs page.
//
// # What the bench cannot do
//
// Process plugins run through the host's process transport; run.js and
// run.wasm plugins run through the transports Options.Transports gives (the
// CLI gives the module transport). A declarative plugin (no run) passes
// the manifest check and skips the rest. A child that leaves the program's
// process group (setsid, a daemonising double fork) is not seen by the
// children check, as it escapes the host's stop too.
package conformance
