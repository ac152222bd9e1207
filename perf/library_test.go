package perf

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/host/wasm"
	"github.com/escouade-dev/escouade-plugin/keychain"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/modules"
	"github.com/escouade-dev/escouade-plugin/registry"
)

// libraryCalls is how many calls of each plugin a round times.
const libraryCalls = 50

// TestReportLibrary measures what an app that embeds the library sees,
// with no console in the way, interleaved in rounds in one process: for
// each kind (a Go-kit module and the same source as a process, the Rust
// kit's module, the hello-js bundle in the engine and under node), the
// activation of the plugin in a running host to its first answer, a
// Restart to its first answer (what was compiled and read is reused),
// and a call's round trip (host → transport → plugin → answer). Each
// round runs in hosts of their own, whose compile cache on disk is warm:
// a new host of the day, not the first compile. The activation is timed
// twice: in a host that has done nothing yet (its module decoded at the
// activation), and in one whose warm-up has run (modules.Preload: every
// module decoded once at the host's start); the Restart and the calls
// are of the second.
//
//	cd perf && ESCOUADE_PERF=1 go test -run TestReportLibrary -v .
func TestReportLibrary(t *testing.T) {
	if os.Getenv(perfEnv) != "1" {
		t.Skipf("set %s=1 to measure through the library", perfEnv)
	}
	plugins := libraryPlugins(t)
	home := t.TempDir()
	rounds := 7
	if n, err := strconv.Atoi(os.Getenv("ESCOUADE_PERF_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	type measures struct{ cold, activation, restart, call []time.Duration }
	got := map[string]*measures{}
	for _, p := range plugins {
		got[p.name] = &measures{}
	}
	libraryRound(t, home, plugins, 0, false, func(string, time.Duration, time.Duration, time.Duration) {}) // warms the cache
	for round := 1; round <= rounds; round++ {
		order := append(plugins[round%len(plugins):], plugins[:round%len(plugins)]...)
		libraryRound(t, home, order, round, false, func(name string, a, _, _ time.Duration) {
			got[name].cold = append(got[name].cold, a)
		})
		libraryRound(t, home, order, round, true, func(name string, a, r, c time.Duration) {
			m := got[name]
			m.activation, m.restart, m.call = append(m.activation, a), append(m.restart, r), append(m.call, c)
		})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n%d rounds, GOMAXPROCS=%d\n\n| plugin | activation → first answer, no warm-up | after the warm-up | Restart → first answer | call round trip |\n|---|---:|---:|---:|---:|\n", rounds, runtime.GOMAXPROCS(0))
	for _, p := range plugins {
		m := got[p.name]
		fmt.Fprintf(&b, "| %s | %v | %v | %v | %v |\n", p.name, median(m.cold).Round(10*time.Microsecond), median(m.activation).Round(10*time.Microsecond), median(m.restart).Round(10*time.Microsecond), median(m.call).Round(100*time.Nanosecond))
	}
	ratio := func(pick func(*measures) []time.Duration, a, over string) string {
		ma, mo := got[a], got[over]
		if ma == nil || mo == nil {
			return "—"
		}
		var rs []float64
		for i, x := range pick(ma) {
			rs = append(rs, float64(x)/float64(pick(mo)[i]))
		}
		return fmt.Sprintf("%.2f×", median(rs))
	}
	cold := func(m *measures) []time.Duration { return m.cold }
	act := func(m *measures) []time.Duration { return m.activation }
	rst := func(m *measures) []time.Duration { return m.restart }
	call := func(m *measures) []time.Duration { return m.call }
	fmt.Fprintf(&b, "\n| ratio, per round | activation, no warm-up | after the warm-up | Restart | call |\n|---|---:|---:|---:|---:|\n")
	for _, pair := range [][2]string{{"go module", "go process"}, {"rust module", "go process"}, {"js bundle", "js under node"}} {
		fmt.Fprintf(&b, "| %s ÷ %s | %s | %s | %s | %s |\n", pair[0], pair[1], ratio(cold, pair[0], pair[1]), ratio(act, pair[0], pair[1]), ratio(rst, pair[0], pair[1]), ratio(call, pair[0], pair[1]))
	}
	t.Log(b.String())
}

// libraryPlugins are the CLI report's plugins and the Rust kit's example
// module, each given an id of its own so that one host holds them all.
func libraryPlugins(t testing.TB) []cliPlugin {
	plugins := cliPlugins(t)
	rust := copyPlugin(t, filepath.Join("..", "examples", "hello-rust"), filepath.Join(t.TempDir(), "rust"), nil)
	plugins = append(plugins, cliPlugin{"rust module", rust})
	for i, p := range plugins {
		setManifestID(t, p.dir, fmt.Sprintf("dev.escouade.perf.p%d", i))
	}
	return plugins
}

// setManifestID gives the manifest of dir the id id.
func setManifestID(t testing.TB, dir, id string) {
	t.Helper()
	path := filepath.Join(dir, manifest.FileName)
	var m map[string]any
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil {
		t.Fatal(err)
	}
	m["id"] = id
	b, _ = json.Marshal(m)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// libraryHost is a host as an app makes one over home, every kind
// configured, the plugins' own folders admitted as they are; and its
// WASM transport.
func libraryHost(t testing.TB, home string) (*host.Host, *wasm.Transport) {
	t.Helper()
	opts := host.Options{Home: home, Keychain: keychain.NewMemory()}
	wt, err := modules.Configure(context.Background(), &opts, modules.Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	return host.New(opts), wt
}

// warmUp is what modules.Preload does at a host's start for installed
// plugins, for the report's folders (added, not installed): each module
// and bundle decoded into the host's transport.
func warmUp(t testing.TB, wt *wasm.Transport, ms []*manifest.Manifest) {
	t.Helper()
	for _, m := range ms {
		if k := m.Run.Kind(); k != manifest.RunWASM && k != manifest.RunJS {
			continue
		}
		if err := wt.Precompile(context.Background(), m, nil); err != nil {
			t.Fatalf("%s: %v", m.ID, err)
		}
	}
}

// loadAll loads the plugins' manifests.
func loadAll(t testing.TB, plugins []cliPlugin) []*manifest.Manifest {
	t.Helper()
	ms := make([]*manifest.Manifest, len(plugins))
	for i, lp := range plugins {
		m, err := manifest.Load(lp.dir, manifest.LoadOptions{AppVersion: host.AppVersion})
		if err != nil {
			t.Fatal(err)
		}
		ms[i] = m
	}
	return ms
}

// libraryRound makes a host, warmed up when warm, then for each plugin
// times its activation (Add and the first call answered), a Restart to
// its next answer, and the median of libraryCalls calls; the host is
// closed untimed.
func libraryRound(t *testing.T, home string, plugins []cliPlugin, round int, warm bool, record func(name string, activation, restart, call time.Duration)) {
	h, wt := libraryHost(t, home)
	defer closeHost(h)
	ms := loadAll(t, plugins)
	if warm {
		warmUp(t, wt, ms)
	}
	ctx := context.Background()
	for i, lp := range plugins {
		began := time.Now()
		p, err := h.Add(ms[i], host.Config{Admit: registry.AnyFolder})
		if err != nil {
			t.Fatal(err)
		}
		echo(t, p, lp.name, round)
		activation := time.Since(began)
		began = time.Now()
		if err := p.Restart(ctx); err != nil {
			t.Fatalf("%s: Restart: %v", lp.name, err)
		}
		echo(t, p, lp.name, round)
		restart := time.Since(began)
		calls := make([]time.Duration, libraryCalls)
		for i := range calls {
			began := time.Now()
			echo(t, p, lp.name, i)
			calls[i] = time.Since(began)
		}
		record(lp.name, activation, restart, median(calls))
	}
}

// echo calls hello/echo on p and fails the test on anything but the echo.
func echo(t testing.TB, p *host.Plugin, name string, n int) {
	t.Helper()
	params := json.RawMessage(fmt.Sprintf(`{"n":%d}`, n))
	if err := checkOutcome(p.Call(context.Background(), "hello/echo", params), params); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}
