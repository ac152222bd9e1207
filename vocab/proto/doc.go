// Package proto holds the Go types of every params and result shape of the
// plugin protocol, derived from schemas/plugin-protocol-1.json by
// `go run ./internal/gen` (types_gen.go: never edit it; change the schema
// and regenerate). A test in internal/gen fails when the two drift. The
// host and its services decode with these types; the Go kit gives them to
// plugins under kit/proto. The method names, codes, messages and
// environment names are in the package vocab above.
//
//	var p proto.InitializeParams
//	if err := json.Unmarshal(params, &p); err != nil { … }
//	fmt.Println(p.Plugin.ID, p.Lang)
//
// Shapes the app defines (AppParams, AnyResult) stay raw JSON, as the host
// passes them on unchanged.
package proto
