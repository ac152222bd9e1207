// Package netguard is the egress guard of the WASM network services
// (docs/protocol.md#netfetch): it decides which URLs a plugin may ask for
// and which addresses its connections may reach.
//
// Two layers, each enough on its own for what it judges:
//
//   - A Policy judges a URL before anything is sent: https (wss) only, a
//     host of permissions.network or one of its subdomains by whole labels,
//     an IP literal only when the list names that address, no userinfo,
//     names compared after IDNA mapping with a trailing dot stripped, and
//     malformed or numeric-looking hosts refused. The hosts the app
//     supplies for {account} and local:shared also open plain http (ws) and
//     the local network, for those exact hosts and ports alone.
//   - A Dialer connects for an http.Transport: it resolves the name once
//     and judges, in the net.Dialer's Control hook, the very address each
//     connection dials, so a name rebound between two lookups can never
//     reach this machine or the local network.
//
// Refusals are *Refusal values whose Reason is the journal sentence of
// docs/protocol.md#netfetch, e.g.
//
//	slack.com resolves to 127.0.0.1, an address of this machine or of the local network
//
// Example checks a URL against what was granted and dials through the
// guard a name that resolves to this machine.
package netguard
