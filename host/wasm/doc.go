// Package wasm is the module transport: it runs a plugin's program as a
// WebAssembly instance inside the host (docs/protocol.md#13-modules-and-bundles), under the
// runtime of package engine (wazy, a wazero fork with the same API; the
// comments of this package say wazero for what both do).
//
// A Transport owns one runtime and a compile cache on disk for every
// plugin. Each module (a run.wasm plugin's plugin.wasm, or the JS engine's
// own module for a run.js plugin) is compiled once and instantiated at each
// start under a unique name; the instance runs on a goroutine of its own and
// keeps its state between turns. Example shows the host's use of it: one
// Transport, a precompile at install, a launch at each start, JSON-RPC
// over the Program's stdin and stdout.
//
// Two module shapes run (docs/protocol.md#turns). A reactor exports "escouade-turn": the
// host appends whole lines to its stdin buffer, whose reads never block,
// and calls the export once per batch of lines. A command is any WASI
// preview 1 program: its "_start" runs on the instance's goroutine, and a
// read of an empty stdin (fd_read, or poll_oneoff on a non-blocking stdin)
// ends the turn until more input comes.
//
// The limits of docs/protocol.md#limits end an instance with a typed transport.Exit: a turn
// past its time (TurnTooLong), a memory grown past its 64 MB
// (OutOfMemory), a trap or a guest panic (Trapped), proc_exit (Exited).
// The files of docs/protocol.md#files-of-its-folder are a read-only snapshot mounted at /plugin.
//
// A plugin's module is compiled in a child process under the bounds of
// docs/protocol.md#the-compiles-bounds (60 s, 1 GiB), then read back from
// the cache: the child is the running binary itself, started again with
// an environment marker that this package's init recognizes, so any app
// that links the package gets the bound without a line of its own (its
// main never runs in the child). An app that cannot start its own binary
// again sets Options.CompileInProcess, or falls back to it when the start
// fails: its compiles are then unbounded. The host's own JS engine is
// compiled in process.
package wasm
