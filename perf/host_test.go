package perf

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/keychain"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/process"
	"github.com/escouade-dev/escouade-plugin/registry"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// closeWait bounds how long closing a host rig may take.
const closeWait = 10 * time.Second

// hostRig calls a plugin program through the host, as the app does.
type hostRig struct {
	h     *host.Host
	p     *host.Plugin
	one   json.RawMessage
	calls []jsonrpc.BatchCall
}

// startHost runs the test binary as the named plugin program under a
// host, and makes one call so that the program is started and ready.
func startHost(tb testing.TB, program string) *hostRig {
	tb.Helper()
	return startHostRun(tb, []string{testBinary(tb), "-test.run=^$"}, program)
}

// startNodeHost runs the node echo plugin under a host.
func startNodeHost(tb testing.TB, node string) *hostRig {
	tb.Helper()
	script, err := filepath.Abs(filepath.Join("testdata", "echo-plugin.mjs"))
	if err != nil {
		tb.Fatal(err)
	}
	return startHostRun(tb, []string{node, script}, "")
}

// startHostRun runs command as a plugin under a host, the test binary
// running as program when it is the command.
func startHostRun(tb testing.TB, command []string, program string) *hostRig {
	tb.Helper()
	h := host.New(host.Options{
		Home:       tb.TempDir(),
		Keychain:   keychain.NewMemory(),
		Env:        append(os.Environ(), programEnv+"="+program),
		Transports: map[manifest.RunKind]transport.Transport{manifest.RunProcess: process.NewTransport(0).Passing(programEnv, programProfileEnv)},
	})
	p, err := h.Add(perfManifest(tb, command), host.Config{Admit: registry.AnyFolder})
	if err != nil {
		tb.Fatal(err)
	}
	r := &hostRig{h: h, p: p, one: json.RawMessage(echoParams), calls: echoBatch()}
	tb.Cleanup(r.close)
	if err := r.roundTrip(); err != nil {
		tb.Fatalf("%s does not answer through the host: %v", command, err)
	}
	return r
}

// perfManifest describes command as a process plugin started by the
// first call.
func perfManifest(tb testing.TB, command []string) *manifest.Manifest {
	return &manifest.Manifest{
		ID:         "dev.escouade.perf",
		Version:    "1.0.0",
		Escouade:   manifest.Escouade{API: "1"},
		Run:        &manifest.Run{Command: command},
		Activation: []string{manifest.ActivationOnCall},
		Dir:        tb.TempDir(),
	}
}

func (r *hostRig) roundTrip() error {
	return checkOutcome(r.p.Call(context.Background(), echoMethod, r.one), r.one)
}

func (r *hostRig) batch() error {
	outs := r.p.Batch(context.Background(), r.calls)
	if len(outs) != len(r.calls) {
		return fmt.Errorf("%d outcomes for %d calls", len(outs), len(r.calls))
	}
	for _, o := range outs {
		if err := checkOutcome(o, r.one); err != nil {
			return err
		}
	}
	return nil
}

// close stops the host and its plugin, as the app does when it quits.
func (r *hostRig) close() {
	ctx, cancel := context.WithTimeout(context.Background(), closeWait)
	defer cancel()
	r.h.Close(ctx)
}

// checkOutcome reports how o differs from the echo of params.
func checkOutcome(o host.Outcome, params json.RawMessage) error {
	if o.IsDefault() {
		return fmt.Errorf("default answer: %s: %s", o.Default, o.Reason)
	}
	if o.Error != nil {
		return checkResult(nil, o.Error, params)
	}
	return checkResult(o.Result, nil, params)
}
