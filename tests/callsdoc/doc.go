// Package callsdoc holds the test of docs/calls.md: every method of the
// protocol schema has an example there in TypeScript (the JS SDK) and in
// Rust (the Rust kit), and every example compiles, so the page cannot
// drift from the schema or from the kits.
package callsdoc
