// Package proto is the Go kit's name for the protocol's types and
// vocabulary: every params and result shape of the plugin protocol, the
// name of every method, the error codes and messages and the environment
// names. Each is an alias of the generated packages the host uses too
// (vocab/proto for the shapes, vocab for the constants), written by
// `go run ./internal/gen` (types_gen.go: never edit it), so a plugin and
// the host share one definition.
//
// A plugin decodes what the host sends into these types:
//
//	var p proto.InitializeParams
//	if err := json.Unmarshal(params, &p); err != nil { … }
//	fmt.Println(p.Plugin.ID, p.Lang)
//
// Shapes the app defines (AppParams, AnyResult) stay raw JSON, as the host
// passes them on unchanged.
package proto
