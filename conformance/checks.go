package conformance

import "github.com/escouade-dev/escouade-plugin/vocab"

// Names of the checks, as reports and --json show them. The checks of the
// handshake and of the stop are named after the method they send.
const (
	CheckManifest          = "manifest"
	CheckActivation        = "activation"
	CheckStart             = "start"
	CheckInitialize        = vocab.MethodInitialize
	CheckDelay             = "delay"
	CheckIDs               = "ids"
	CheckBatch             = "batch"
	CheckNotificationBatch = "notification-batch"
	CheckConcurrent        = "concurrent"
	CheckUnknownMethod     = "unknown-method"
	CheckScenarios         = "scenarios"
	CheckHostRequests      = "host-requests"
	CheckMemory            = "memory"
	CheckShutdown          = vocab.MethodShutdown
	CheckChildren          = "children"
	CheckStdout            = "stdout"
)

// ScenarioPrefix starts the name of the row of one scenario: "scenario: echo".
const ScenarioPrefix = "scenario: "

// Check is one property the bench verifies, with what to change when the
// program does not have it.
type Check struct {
	Name  string
	Title string
	Fix   string
}

// Checks returns the built-in checks in the order they run; the rows of
// the scenarios come where CheckScenarios stands.
func Checks() []Check {
	return []Check{
		{CheckManifest, "the manifest holds",
			"correct the fields named above in escouade-plugin.json"},
		{CheckActivation, "something starts the program",
			`add "activation": ["onCall"] to escouade-plugin.json (or "event:<name>" to start it on a fact of the app, e.g. "event:ticket.column")`},
		{CheckStart, "the program starts",
			`make run.command name a program that exists and runs: a first element starting with "./" is relative to the plugin folder and must be executable; any other is looked up in PATH`},
		{CheckInitialize, "initialize answered with protocol version 1 in time",
			`answer initialize at once with {"protocolVersion":1,"capabilities":{…}} (protocolVersion the number 1, not a string), before any slow setup; ` +
				`flush stdout after each line: print(..., flush=True) in Python (process.stdout.write is fine in Node), bufio.Writer.Flush in Go`},
		{CheckIDs, "ids echoed exactly",
			"copy each request's id into its answer as it came: never parse it as a float (9007199254740993 must stay exact) nor change its type"},
		{CheckBatch, "a batch answered by one batch",
			"answer a JSON array of messages with one JSON array, on one line, holding the answer of every request in it"},
		{CheckNotificationBatch, "a notification-only batch answered by nothing",
			"send nothing back for a batch holding notifications only, not even []"},
		{CheckConcurrent, "concurrent calls answered by id",
			"read stdin line by line (two requests may arrive in one read) and answer each under its own id, in any order"},
		{CheckUnknownMethod, "an unknown method answered -32601",
			`answer a method you do not serve with {"code":-32601,"message":"Method not found"}`},
		{CheckDelay, "a call answered within its delay",
			"answer every call within its delay (docs/protocol.md, section 5); answer -32601 at once to a method you do not serve, and do slow work away from the loop that reads stdin"},
		{CheckScenarios, "escouade-bench.json holds",
			"correct escouade-bench.json where the refusal says; the format is in " + BenchFileDocs},
		{CheckHostRequests, "what it asks of the host stays inside its permissions",
			"ask only for what the manifest's permissions grant (a key of permissions.secrets, a host of permissions.network, a root of permissions.files, a program of permissions.programs, a non-hidden file of the plugin folder), with params the protocol schema allows"},
		{CheckMemory, "memory at idle",
			"hold less memory at idle: free caches, start large work on demand"},
		{CheckShutdown, "shutdown answered in time, then exit",
			"answer shutdown, then exit: stop reading stdin and return from main"},
		{CheckChildren, "nothing it started left behind",
			"stop the processes you started before exiting; keep them in your process group (no setsid, no daemonising) so a stop reaches them"},
		{CheckStdout, "stdout carries only JSON-RPC",
			"write traces and banners on stderr, which the journal keeps (print(..., file=sys.stderr) in Python, console.error in Node, os.Stderr in Go): " +
				"stdout is the protocol's alone; and send nothing back for a message without \"method\" (a response, such as an error with id null)"},
	}
}

// scenarioFix is the fix of a scenario that failed.
const scenarioFix = "make the method answer what the scenario expects, or correct the scenario in escouade-bench.json"

// lookupCheck returns the check named name.
func lookupCheck(name string) Check {
	for _, c := range Checks() {
		if c.Name == name {
			return c
		}
	}
	return Check{Name: name, Title: name}
}
