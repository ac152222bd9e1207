// Package jsrt is the JS runtime of run.js plugins: QuickJS compiled to a
// WASI reactor (quickjs.wasm, built byte for byte reproducibly from
// Debian's quickjs source package by build/build.sh), its Node surface in
// JavaScript (runtime/runtime.js), and the host-side bundle check.
//
// The host's module transport runs the Engine's Module like any reactor,
// with the bundle's files (Engine.Bundle) mounted read-only at /bundle
// beside /plugin; Example shows the bundle's files and an exit code read
// as a transport.Exit (ExitOf).
//
// # What a bundle finds
//
// import { readFileSync, existsSync } from 'node:fs' — reads files under
// /plugin, the plugin's root JSON files (relative paths, absolute paths and
// file: URLs such as new URL('../rules.json', globalThis._importMeta_.url));
// readFileSync returns a Buffer without an encoding, a string with 'utf8'.
// Other fs functions throw ENOSYS.
//
// import { createInterface } from 'node:readline' — lines of stdin as
// 'line' events or with for await; pause, resume, close, question.
//
// Globals: process (stdout.write, stderr.write, stdin 'data', exit, argv,
// an empty env, nextTick, hrtime, cwd() = /plugin), console (every method
// writes to stderr, never to stdout), setTimeout, setInterval, clearTimeout,
// clearInterval (on the host's timer/*: at least 10 ms, 64 at once),
// setImmediate, queueMicrotask, fetch with Request, Response and Headers
// (over net/fetch: text, json, arrayBuffer, bytes, status, headers, clone),
// AbortController and AbortSignal (an abort rejects the fetch; the host's
// request still runs to its end), TextEncoder and TextDecoder (UTF-8), URL and
// URLSearchParams, structuredClone, atob, btoa, Buffer (utf8, base64, hex,
// latin1), crypto.getRandomValues and crypto.randomUUID, performance.now,
// and everything of ECMAScript 2023 that QuickJS has.
//
// # What is missing
//
// No Intl (toLocaleString and friends use QuickJS's fixed English forms), no
// environment (process.env is empty), no require, no Node module other than
// node:fs and node:readline (the bundle check refuses the import), no code
// from the network (a dynamic import of anything else fails; eval and
// new Function exist, as in any ECMAScript engine, for the bundle's own
// strings), no response
// streams (Response.body is null: net/stream is reached by JSON-RPC), no
// Blob, FormData, WebSocket, Worker or SharedArrayBuffer with Atomics, no
// crypto.subtle, no writable files, no end of stdin ('close' comes only from
// rl.close()), no process.on('exit'), no uncaughtException handler: an
// uncaught exception or an unhandled rejection ends the instance. URL
// hosts are lower-cased but not IDNA-mapped. A timer's callback runs in the
// turn the host's timer/fired arrives in.
//
// # What the host does with it
//
// The runtime that runs the engine is wazy, whose compiled code checks its
// call's context at function entries and loop back-edges, with a page
// limit of 1024 (64 MB; the module declares the same maximum). An instance
// gets the real clocks (WithSysNanotime: the interrupt handler reads the
// monotonic clock), the host's CSPRNG, no environment, /bundle and /plugin
// read-only. After _initialize the host runs a first turn, which runs the
// bundle's top level; before each turn it calls escouade-budget with the
// turn's limit in ms and gives the call a context whose deadline is a little
// past it (the engine's interrupt ends JS code at the limit; the deadline
// stops a built-in that never checks it). See docs/RATIONALE.md.
//
// # Bytecode
//
// Parsing runtime.js and the bundle is most of a start, so the host keeps
// their QuickJS bytecode (Engine.CachedBundle, bytecode.go): the first
// start, or install and build, runs escouade-compile in an instance of its
// own, which compiles both without running them and writes their
// bytecode on stdout; the host stores it in a file named by the engine's
// SHA-256, runtime.js's, the identity of Check's rules, the bundle's path
// and the bundle's SHA-256, with a digest of its contents. Later starts mount it as /bundle/runtime.qbc
// and /bundle/plugin.qbc, which the engine reads with JS_ReadObject
// instead of parsing the sources. A file that is not exactly what was
// written for these inputs is never handed to the engine: it is compiled
// again and replaced; a file a start failed from is removed by the host.
// The bundle's import.meta.url, its stack traces and
// Function.prototype.toString are the same from bytecode.
//
// # Ends of an instance
//
// The engine ends its instance with proc_exit: 0..255 from process.exit,
// ExitCrash (the last stderr line is CrashPrefix and the exception with
// its stack's first line), ExitTurnTooLong (its interrupt handler stopped
// JS code at the turn's budget) and ExitOutOfMemory. ExitOf maps them to
// a transport.Exit.
package jsrt
