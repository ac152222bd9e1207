package host

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/keychain"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/process"
	"github.com/escouade-dev/escouade-plugin/registry"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// fakeManifest describes the test binary as a process plugin.
func fakeManifest(t *testing.T) *manifest.Manifest {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return &manifest.Manifest{
		ID:         "dev.test.fake",
		Version:    "1.0.0",
		Escouade:   manifest.Escouade{API: "1"},
		Run:        &manifest.Run{Command: []string{exe, "-test.run=^$"}},
		Activation: []string{"onCall", "event:ticket.column"},
		Permissions: manifest.Permissions{
			Secrets: []string{"token", "account:*"},
		},
		Dir: t.TempDir(),
	}
}

// processTransports runs run.command programs as the CLI does: as
// processes, each stop step taking grace.
func processTransports(grace time.Duration) map[manifest.RunKind]transport.Transport {
	t := process.NewTransport(grace).Passing("FAKE_PLUGIN") // the fake's mode: a plugin gets no other variable of the app's
	return map[manifest.RunKind]transport.Transport{manifest.RunProcess: t}
}

// startHost makes a host whose plugin runs the fake in the given mode.
func startHost(t *testing.T, mode string, opts Options, edit ...func(*manifest.Manifest)) (*Host, *Plugin) {
	t.Helper()
	m := fakeManifest(t)
	for _, e := range edit {
		e(m)
	}
	if opts.Home == "" {
		opts.Home = t.TempDir()
	}
	if opts.Keychain == nil {
		opts.Keychain = keychain.NewMemory()
	}
	opts.Env = append(os.Environ(), "FAKE_PLUGIN="+mode)
	if opts.StopGrace == 0 {
		opts.StopGrace = 200 * time.Millisecond
	}
	if opts.Transports == nil {
		opts.Transports = processTransports(opts.StopGrace)
	}
	h := New(opts)
	p, err := h.Add(m, folderConfig(m))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h, p
}

// eventually polls cond until it holds or 10 s pass; it waits on an event,
// it asserts nothing by the time it takes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		<-tick.C
	}
}

func waitState(t *testing.T, p *Plugin, want State) Status {
	t.Helper()
	var st Status
	eventually(t, "state "+string(want), func() bool {
		st = p.Status()
		return st.State == want
	})
	return st
}

// journalHas waits for a journal line with that tag holding text.
func journalHas(t *testing.T, p *Plugin, tag, text string) string {
	t.Helper()
	var found string
	eventually(t, "journal line "+tag+" "+text, func() bool {
		lines, _ := p.Journal().Tail(500)
		for _, l := range lines {
			if _, rest, ok := strings.Cut(l, " "); ok && strings.HasPrefix(rest, tag+" ") && strings.Contains(rest, text) {
				found = l
				return true
			}
		}
		return false
	})
	return found
}

func journalLacks(t *testing.T, p *Plugin, text string) {
	t.Helper()
	lines, _ := p.Journal().Tail(500)
	for _, l := range lines {
		if strings.Contains(l, text) {
			t.Errorf("journal line %q holds %q", l, text)
		}
	}
}

func call(t *testing.T, p *Plugin, method string, params any) Outcome {
	t.Helper()
	return p.Call(context.Background(), method, params)
}

func mustResult(t *testing.T, o Outcome) json.RawMessage {
	t.Helper()
	if o.IsDefault() || o.Error != nil {
		t.Fatalf("want a result, got %+v", o)
	}
	return o.Result
}

// folderConfig is the Config of a folder the test runs as a person runs
// their own (escouade-plugin run DIR): no consent checked, all it asks
// granted.
func folderConfig(m *manifest.Manifest) Config {
	granted := m.Permissions
	return Config{Admit: registry.AnyFolder, Granted: &granted}
}
