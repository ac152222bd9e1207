// Package kit is the Go plugin kit of Escouade: it speaks protocol 1
// (PROTOCOL.md) for a plugin's program so that its author only writes the
// methods the plugin offers.
//
// A plugin registers its methods, events and attach handler, then runs:
//
//	func main() {
//		p := kit.New()
//		p.Handle("notes/echo", func(ctx context.Context, params json.RawMessage) (any, error) {
//			return params, nil
//		})
//		p.OnEvent("ticket.column", func(ctx context.Context, params json.RawMessage) {
//			p.Log("info", "a ticket moved")
//		})
//		if err := p.Run(); err != nil {
//			fmt.Fprintln(os.Stderr, err)
//			os.Exit(1)
//		}
//	}
//
// The kit answers initialize ({"protocolVersion":1,"capabilities":…}),
// answers shutdown with null and then returns from Run, answers -32601 to a
// method nobody registered, and calls the host's services for the plugin:
// Secret (secrets/get), Settings (settings/get), ReadFile (files/read) and
// Log (the log notification). Handlers run concurrently, one goroutine per
// request; event handlers run one at a time in the order the host sent the
// events. A handler's error that is or wraps a *jsonrpc.Error goes to the
// host with that code (Decode wraps jsonrpc.ErrInvalidParams); any other
// error goes as -32603. A handler that panics is answered -32603 and the
// panic is traced on stderr; the plugin keeps running.
//
// Stdout carries the protocol only: a plugin writes its traces on stderr,
// which the host copies to the plugin's journal line by line.
//
// # Transports
//
// Today the kit runs a plugin as a process (run.command in the manifest):
// Run serves stdin and stdout through a jsonrpc.Conn. When the host sends
// shutdown or closes stdin, the kit stops reading, ends the handlers'
// contexts and lets the answers under way go out (Options.StopGrace at
// most) before Run returns.
//
// The WASM side is designed but not written: building a plugin with
// GOOS=wasip1 and this kit does not work today. The plan, PROTOCOL.md §8.2:
// a wasip1-only file exports escouade-turn, which feeds the lines the host
// appended to stdin to the same routing as Serve, runs the goroutines until
// each handler has returned or waits on the host, and returns; a call to
// the host (Secret, Settings, ReadFile) then completes in a later turn.
// Only Run and Serve know the transport: handlers reach the host through
// the hostPeer seam, so a plugin's handlers stay the same. Because a
// reactor module runs package initialisation but never main, that build
// will also need an entry point that registers the handlers outside main.
package kit
