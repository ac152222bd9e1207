// Package schemas embeds the JSON Schemas the project ships: plugin-1.json
// (the manifest) and plugin-protocol-1.json (every method of protocol 1).
// They are committed files, read at run time from this embedded copy so a
// binary never depends on the folder it was built from.
package schemas

import "embed"

// FS holds every *.json file of this folder.
//
//go:embed *.json
var FS embed.FS

// Manifest is the path of the manifest schema inside FS.
const Manifest = "plugin-1.json"

// Protocol is the path of the protocol schema inside FS.
const Protocol = "plugin-protocol-1.json"
