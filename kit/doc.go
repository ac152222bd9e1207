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
// Run serves stdin and stdout through a jsonrpc.Conn. Everything but Run
// and Serve talks to the host through the small hostPeer seam, so the same
// plugin source can later be built with GOOS=wasip1 as a reactor module
// (PROTOCOL.md §8.2: an exported escouade-turn fed whole lines, where an
// answer from the host arrives in a later turn). That reactor transport is
// not written yet: building a plugin for WASM with this kit does not work
// today.
package kit
