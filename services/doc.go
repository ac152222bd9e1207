// Package services holds what the host serves a process plugin
// (docs/protocol.md#7-what-the-host-serves-a-process): secrets/get,
// settings/get, the log notification and files/read. Every other method,
// the WASM-only ones included (net/*, ws/*, timer/*, fs/*, proc/*), is
// answered -32601: a process has its own network, clock and disk.
//
// A Server is built by the host for one start of one plugin, from the
// manifest and the permissions granted now; a user change stops the program
// (docs/protocol.md#9-stopping-closing-and-user-changes), so the next start gets a new Server. Its fields are read-only after
// construction and Handle is safe for concurrent use as long as Keychain,
// Journal, Mask and Project are.
//
//	srv := &services.Server{PluginID: m.ID, Dir: m.Dir, Keychain: kc,
//		Granted: granted, Declared: m.Contributes.Settings, User: user,
//		Project: projects.Dir, Journal: j.Write, Mask: j.Mask}
//	result, err := srv.Handle(ctx, msg.Method, msg.Params)
//
// Refusals are *Error values carrying the JSON-RPC code; Handle journals
// each of them (tag "refused", text "<method>: <reason>") before returning
// it, so the host only turns it into the wire error.
//
// Decisions this package makes where the protocol leaves room:
//
//   - An unknown project id in settings/get is refused with -32602 (the
//     project param does not hold); a .escouade.yml that cannot be read or
//     parsed is refused with -32004 (the request failed on the way).
//   - Values dropped from settings (a .escouade.yml value that is
//     undeclared, secret-typed or of the wrong type; a user value of the
//     wrong type) are journaled with the tag "dropped" and never print the
//     value itself, which might be a secret typed in the wrong place. The
//     plugin being off in a project is journaled with the tag "refused".
//   - A project value equal to its default removes the key from the answer:
//     it overrides the user's value, and the answer never holds defaults.
//   - A log with an unknown level is journaled as a refusal and its message
//     kept under log.info, so nothing the plugin wrote is lost.
//   - files/read also refuses a colon anywhere (a drive, or an NTFS stream
//     such as a.txt:secret), control characters, empty segments (a//b, a
//     trailing slash) and 8.3 short names (ESCOUA~1.JSO, which on Windows
//     may alias the manifest or a hidden file), so one path means the same
//     file on every system. Windows device names are refused on every
//     system for the same reason.
//   - A symlink to the manifest is refused like the manifest itself.
//
// What is not done here: params are checked by hand against the shapes of
// docs/protocol.md#7-what-the-host-serves-a-process, not against schemas/plugin-protocol-1.json, which does not describe
// these methods yet. Keychain calls do not honour ctx: the keychain
// interface takes none.
package services
