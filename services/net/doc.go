// Package net serves the network to module programs (docs/protocol.md#netfetch,
// #netstream, #ws): net/fetch, net/stream with its net/chunk and net/end
// notifications and net/cancel, and the websockets of ws/open, ws/send,
// ws/close with ws/message and ws/closed.
//
// Every request goes through the egress guard of package netguard: the URL
// is judged against the granted permissions.network before anything is
// sent, and every connection is judged again, in the dialer's Control
// hook, on the address it dials. Environment proxy variables are never
// read; the app's proxy, when it sets one, dials for the plugin, and then
// only the name is judged.
//
// One Service is made per instance of a program:
//
//	svc := netsvc.New(netsvc.Config{PluginID: m.ID, Granted: granted,
//		Limits: m.Limits, Journal: journal, Peer: peer})
//	defer svc.Close() // ends fetches and streams, closes sockets
//
// Refusals are *services.Error values: -32003 for what the plugin may not
// reach, -32004 for what failed on the way, each with the journal sentence
// in Reason; the host journals them.
//
// Decisions where the protocol leaves room:
//
//   - limits.netTimeoutMs and limits.netMaxBytes replace the defaults
//     whatever their value within the ceilings (the manifest's schema
//     holds them there): a plugin may ask for less as well as more.
//   - The host asks for gzip and deflate itself and decodes them before
//     counting; the plugin's Accept-Encoding is dropped, so no encoding the
//     host cannot decode is ever asked for. A body in another encoding
//     fails. The answer's headers lose Content-Encoding and Content-Length,
//     which described the encoded body.
//   - The app's hosts for local:shared are dialed directly, never through
//     the app's proxy: they are on this machine or its network.
//   - A ws/message over 1 MiB closes the socket with 1009 (too big), as
//     the websocket library does, and ws/closed says so.
package net
