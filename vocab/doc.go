// Package vocab is the one vocabulary of protocol 1: the name of every
// method, the error codes, the messages of the wire errors the host
// answers, the names of the ESCOUADE_* variables a process plugin gets,
// and the protocol's numbers (Limit…: package protocol gives them their
// types and the names of their rules; jsonrpc, below it, reads its own
// here). It is generated from schemas/plugin-protocol-1.json by
// `go run ./internal/gen` (vocab_gen.go: never edit it; change the schema
// and regenerate) and imports nothing, so the host, its services, jsonrpc,
// the conformance bench and the Go kit all import it without weight.
//
// Nothing else spells these words: a test of this package fails when a
// method name, a code, a message or an environment name of the vocabulary
// is written as a literal in any other Go file of the module (tests and
// their fixtures aside). A method a pattern names ("permissions/*") is
// given by its prefix (MethodPrefixPermissions = "permissions/").
package vocab
