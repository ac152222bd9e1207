package wasm

import (
	"io/fs"
	"time"

	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/protocol"
)

// Options configure a Transport. The zero value of each field means the
// documented default: the limits of docs/protocol.md#limits and #files-of-its-folder.
type Options struct {
	// CacheDir keeps compiled code between runs: "<home>/wasm-cache". The
	// code lives in a folder per host version under it, so an update of
	// the host recompiles. Empty compiles in memory only.
	CacheDir string
	// HostVersion names the cache folder; empty is "dev".
	HostVersion string
	// JS runs run.js plugins; nil refuses them.
	JS Engine
	// JSWithoutCloseOnContextDone runs the JS engine's instances on a
	// second runtime compiled without wazero's termination checks, for an
	// engine that stops its own runaway turns (escouade-budget). The
	// transport still ends such an instance at the turn limit, but only
	// once the engine returns. Default: the same runtime as every module.
	// On a runtime whose code always checks (engine.AlwaysChecks, the
	// case of wazy) the second runtime checks too, and a Stop ends a
	// running call as on the first.
	JSWithoutCloseOnContextDone bool

	// Memory is the linear memory of an instance; default
	// protocol.ModuleMemory.
	Memory uint64
	// TurnLimit and DecisionTurnLimit bound a turn, the second while the
	// instance holds a decision; defaults protocol.TurnLimit and
	// protocol.DecisionTurnLimit.
	TurnLimit, DecisionTurnLimit time.Duration
	// StartLimit bounds a reactor's start, before its first input:
	// _initialize, and the JS engine's first turn (its runtime and the
	// bundle's top level). Default the turn limit: a runaway top level
	// gets the sentence any runaway turn gets.
	StartLimit time.Duration
	// FileLimit and FilesLimit bound the root JSON files given at /plugin,
	// each and in all; defaults protocol.ModuleFileBytes and
	// protocol.ModuleFilesBytes.
	FileLimit, FilesLimit int64
	// StdinBuffer is how many bytes of lines wait for an instance to read
	// them before a write to its Stdin waits; default 16 MiB. A line is
	// always taken whole, whatever its length.
	StdinBuffer int
	// StdoutBuffer is how many bytes an instance may write that the host
	// has not read before its write waits (its turn clock running: the
	// wait is part of the turn); default protocol.ModuleStdoutBytes.
	StdoutBuffer int
	// StdoutLine is the longest stdout line an instance may write; one
	// that runs past it without a newline ends the instance. Default the
	// protocol's line, protocol.MaxLineBytes.
	StdoutLine int
	// StderrKeep is how many stderr lines LastStderr keeps; default
	// protocol.CrashStderrLines.
	StderrKeep int
	// StderrLine is the longest stderr line handed on whole; longer ones
	// are cut in pieces of that size. Default protocol.StderrPieceBytes.
	StderrLine int
	// ProgressAfter is how long a compile runs before a progress line says
	// so; default 500 ms.
	ProgressAfter time.Duration
	// CompileTime and CompileMemory bound the compile of a plugin's
	// module (docs/protocol.md#limits): it runs in a child process, this
	// binary started again (the package's init makes it a compile
	// child), ended past either; defaults DefaultCompileTime and
	// DefaultCompileMemory (ten times both in a binary built with the
	// race detector, which slows the compiler that much). The memory
	// bound is hard on Linux only.
	CompileTime   time.Duration
	CompileMemory uint64
	// CompileInProcess compiles every module in this process, unbounded:
	// for an app that cannot start its own binary again. A binary that
	// fails to start again compiles in process too.
	CompileInProcess bool
	// FirstCompile, when set, is told of a module compiled for the first
	// time into the cache on disk (none of its marks there: checked.go):
	// a line before, saying what the wait is, and one after with its
	// time. A read of the cache says nothing. The CLI's run writes them
	// on stderr.
	FirstCompile func(line string)
}

// Engine is a JS runtime built to WebAssembly (package jsrt provides one):
// a run.js plugin is an instance of its module with the plugin's bundle
// mounted read-only at /bundle, main file /bundle/plugin.mjs.
type Engine interface {
	// Module is the engine's own module, a reactor; it is compiled once
	// and cached like any module.
	Module() []byte
	// Bundle is the plugin's checked bundle; an error's text is the
	// reason the plugin does not start.
	Bundle(m *manifest.Manifest) (fs.FS, error)
}

const (
	defaultStdinBuffer   = 16 << 20
	defaultProgressAfter = 500 * time.Millisecond
	defaultHostVersion   = "dev"
)

// withDefaults returns o with every zero field set to its default.
func (o Options) withDefaults() Options {
	o.Memory = orDefault(o.Memory, protocol.ModuleMemory)
	o.TurnLimit = orDefault(o.TurnLimit, protocol.TurnLimit)
	o.DecisionTurnLimit = orDefault(o.DecisionTurnLimit, protocol.DecisionTurnLimit)
	o.StartLimit = orDefault(o.StartLimit, o.TurnLimit)
	o.FileLimit = orDefault(o.FileLimit, protocol.ModuleFileBytes)
	o.FilesLimit = orDefault(o.FilesLimit, protocol.ModuleFilesBytes)
	o.StdinBuffer = orDefault(o.StdinBuffer, defaultStdinBuffer)
	o.StdoutBuffer = orDefault(o.StdoutBuffer, protocol.ModuleStdoutBytes)
	o.StdoutLine = orDefault(o.StdoutLine, protocol.MaxLineBytes)
	o.StderrKeep = orDefault(o.StderrKeep, protocol.CrashStderrLines)
	o.StderrLine = orDefault(o.StderrLine, protocol.StderrPieceBytes)
	o.ProgressAfter = orDefault(o.ProgressAfter, defaultProgressAfter)
	o.HostVersion = orDefault(o.HostVersion, defaultHostVersion)
	o.CompileTime = orDefault(o.CompileTime, DefaultCompileTime*raceScale)
	o.CompileMemory = orDefault(o.CompileMemory, DefaultCompileMemory*raceScale)
	return o
}

func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
