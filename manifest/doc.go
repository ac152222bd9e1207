// Package manifest reads and validates a plugin's manifest,
// escouade-plugin.json (docs/protocol.md#1-the-manifest, docs/harness.md).
//
// Load reads the manifest of a plugin folder and Parse the bytes of one.
// Both refuse a manifest that does not hold with an *Error listing every
// problem found, each naming the field as a JSON pointer, the reason, and a
// fix:
//
//	m, err := manifest.Load(dir, manifest.LoadOptions{AppVersion: "2.2.0"})
//	if err != nil {
//		fmt.Println(err) // escouade-plugin.json: /permissions/secrets/1: … (fix: …)
//	}
//
// Validation runs in three steps. The bytes are checked first (empty,
// byte order mark, invalid UTF-8, not JSON, data after the value, not an
// object). The document is then validated against the JSON Schema the
// project ships, schemas/plugin-1.json (draft 2020-12), whose failures are
// turned into plain sentences with a fix. Last come the rules a schema cannot
// say: escouade.min against the app's version, an enum setting's default
// among its choices, unique harness, mode and model ids, a tested range in
// order, and the exact reasons a permissions.secrets entry is refused. When a
// rule and the schema both fault the same field, the rule's more precise
// message is kept.
//
// Member names are case-sensitive, as in the rest of the protocol: unknown
// top-level keys are refused, and inside contributes entries an unknown key
// (even "ACP" beside "acp") is kept in the entry's Extra and ignored.
// Unknown members of the small objects of a harness entry (locate, tested,
// install, a model, a mode) are accepted and dropped.
//
// Texts shown to the user are Text values: a string or an object of
// language to string, kept in document order so In can fall back to the
// first language given.
package manifest
