package modules

import (
	"context"
	"time"

	"github.com/escouade-dev/escouade-plugin/host/wasm"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/process"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// The registry of run kinds: which transport runs each kind of program.
// The host, the bench and the CLI all take theirs from here, so a kind is
// run the same way wherever it runs.
//
//	run.command  a process (process), each stop step taking grace
//	run.wasm     a module on the WASM transport (host/wasm), behind the
//	             app-version gate (Gate)
//	run.js       the same transport, its JS engine running the bundle

// ProcessTransport is the transport of run.command programs: processes,
// sharing one launcher, each step of their stop taking grace (0: 500 ms).
func ProcessTransport(grace time.Duration) transport.Transport {
	return process.NewTransport(grace)
}

// DefaultTransport is the transport of a kind that needs nothing of the
// host's home: run.command's. The others need a compile cache and a JS
// engine (Transports).
func DefaultTransport(kind manifest.RunKind, grace time.Duration) (transport.Transport, bool) {
	if kind == manifest.RunProcess {
		return ProcessTransport(grace), true
	}
	return nil, false
}

// Transports is every kind's transport for one host: processes, and the
// WASM transport (returned too) behind the gate of appVersion (Gate) for
// run.wasm and run.js. The host owns them and closes them with it.
func Transports(ctx context.Context, o Options, grace time.Duration, appVersion string) (map[manifest.RunKind]transport.Transport, *wasm.Transport, error) {
	wt, err := NewTransport(ctx, o)
	if err != nil {
		return nil, nil, err
	}
	gated := Gate(wt, appVersion)
	return map[manifest.RunKind]transport.Transport{
		manifest.RunProcess: ProcessTransport(grace),
		manifest.RunWASM:    gated,
		manifest.RunJS:      gated,
	}, wt, nil
}
