// Package kit is the Go plugin kit of Escouade: it speaks protocol 1
// (docs/protocol.md) for a plugin's program so that its author only writes the
// methods the plugin offers.
//
// A plugin registers its methods, events and attach handler, then runs,
// as Example's main does; ExamplePlugin_Serve feeds it the host's lines.
//
// The kit answers initialize ({"protocolVersion":1,"capabilities":…}),
// answers shutdown with null and then returns from Run, answers -32601 to a
// method nobody registered, and calls the host's services for the plugin:
// Secret (secrets/get), Settings (settings/get), ReadFile (files/read),
// Log (the log notification) and After, AfterFunc, Sleep and Timeout
// (timers: the host's timer/set in a module, Go timers in a process). Handlers run
// concurrently, one goroutine per request; event handlers run one at a
// time in the order the host sent the events. A handler's error that is or wraps a *jsonrpc.Error goes to the
// host with that code (Decode wraps jsonrpc.ErrInvalidParams); any other
// error goes as -32603. A handler that panics is answered -32603 and the
// panic is traced on stderr; the plugin keeps running.
//
// Stdout carries the protocol only: a plugin writes its traces on stderr,
// which the host copies to the plugin's journal line by line.
//
// # Transports
//
// One source builds two ways, with the same API:
//
//	go build -o bin/plugin .                                            # a process: run.command
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o plugin.wasm . # a module: run.wasm
//
// As a process, Run serves stdin and stdout through a jsonrpc.Conn. When
// the host sends shutdown or closes stdin, the kit stops reading, ends the
// handlers' contexts and lets the answers under way go out
// (Options.StopGrace at most) before Run returns.
//
// As a module (docs/protocol.md#turns, the reactor shape), the kit exports
// escouade-turn. A c-shared module runs package initialisation in
// _initialize but never main, so the first turn starts the program's
// main on a goroutine: main registers the handlers and calls Run as in a
// process. Each turn then reads every byte the host appended to stdin
// (reads of fd 0 never block: 0 bytes or EAGAIN mean nothing more now),
// hands it to the same Serve, and yields until no goroutine can run —
// each handler has returned or waits for an answer of the host — before
// it writes what they produced to stdout and returns. A call to the host
// (Secret, Settings, ReadFile, After) thus completes in a later turn, and
// no turn ever blocks. When main returns (after shutdown), the module
// exits at the end of that turn, as a process would.
//
// In a module the Go runtime runs only during turns: a goroutine blocked
// on time.Sleep, time.After or a context deadline wakes at the first turn
// after it is due, and none may come. Wait with After, AfterFunc or Sleep,
// and bound a wait with Timeout rather than context.WithTimeout,
// which ask the host for a timer (timer/set) that wakes the module with
// timer/fired. In a process those are Go timers. Files: a module reads
// the plugin's root JSON files under /plugin (os.ReadFile
// ("/plugin/rules.json")), others with ReadFile; it has no environment,
// so Env is empty and Init is known from initialize only.
//
// # Performance
//
// BenchmarkEchoTurn times one echo call to a module built from
// testdata/turns (append the line, run escouade-turn, take the answer);
// BenchmarkEchoProcess times the same call to the process build of the
// same source over its pipes:
//
//	go test -run '^$' -bench 'Echo(Turn|Process)' -benchmem ./kit
//
// The figures, the machine they were taken on and what the time goes to
// are in docs/PERFORMANCE.md, section "kit: a module turn against a
// process round trip".
package kit
