package modules

import (
	"context"
	"testing"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// The registry gives every run kind a transport, run.wasm and run.js the
// same WASM transport behind the app-version gate; Configure fills a host's options with them, keeps a
// run.command transport the caller gave, and hands the WASM transport the
// host's decisions.
func TestTheRegistryServesEveryKind(t *testing.T) {
	ctx := context.Background()
	all, wt, err := Transports(ctx, Options{Home: t.TempDir()}, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	defer wt.Close(ctx)
	for _, kind := range []manifest.RunKind{manifest.RunProcess, manifest.RunWASM, manifest.RunJS} {
		if all[kind] == nil {
			t.Errorf("no transport for run.%s", kind)
		}
	}
	if all[manifest.RunWASM] != Gate(wt, "") || all[manifest.RunJS] != Gate(wt, "") {
		t.Errorf("run.wasm and run.js do not share the gated WASM transport")
	}
	if _, ok := DefaultTransport(manifest.RunProcess, 0); !ok {
		t.Errorf("no default transport for run.command")
	}
	if _, ok := DefaultTransport(manifest.RunWASM, 0); ok {
		t.Errorf("a default transport for run.wasm, which needs the home's cache")
	}

	given := ProcessTransport(0)
	opts := host.Options{Home: t.TempDir(), Transports: map[manifest.RunKind]transport.Transport{manifest.RunProcess: given}}
	cwt, err := Configure(ctx, &opts, Options{Home: opts.Home})
	if err != nil {
		t.Fatal(err)
	}
	defer cwt.Close(ctx)
	if opts.Transports[manifest.RunProcess] != given {
		t.Errorf("Configure replaced the run.command transport the caller gave")
	}
	if opts.Transports[manifest.RunWASM] != Gate(cwt, "") || opts.Decisions == nil || len(opts.ModuleServices) == 0 {
		t.Errorf("Configure left out the WASM transport, its decisions or the module services: %+v", opts)
	}
}
