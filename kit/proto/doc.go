// Package proto holds the Go types of every params and result shape of the
// plugin protocol, and the name of every method, derived from
// schemas/plugin-protocol-1.json by `go run ./internal/gen` (types_gen.go:
// never edit it; change the schema and regenerate). A test in internal/gen
// fails when the two drift.
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
