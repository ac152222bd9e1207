// Package rust holds the source of the Rust kit (the escouade-plugin
// crate) so that the CLI can hand it to cargo: `escouade-plugin build`
// writes it under the home and patches the crate's
// `escouade-plugin = "0.1"` dependency to it, since no crates registry
// carries it for an offline build.
package rust

import "embed"

// Source is the crate: Cargo.toml and src/.
//
//go:embed Cargo.toml src/*.rs
var Source embed.FS

// Name and Version are the crate's, as its Cargo.toml says.
const (
	Name    = "escouade-plugin"
	Version = "0.1.0"
)
