package perf

import (
	"context"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/registry"
)

// BenchmarkLibrary times, for each plugin of TestReportLibrary, a call's
// round trip through the library (call/…) and an activation to the first
// answer (activation/…: Add and the first call in a new host, the host
// made and closed untimed, the cache on disk warm), the instrument to
// profile them with:
//
//	go test -run '^$' -bench 'Library/call/go_module' -cpuprofile cpu.pprof .
func BenchmarkLibrary(b *testing.B) {
	plugins := libraryPlugins(b)
	home := b.TempDir()
	h, _ := libraryHost(b, home)
	defer closeHost(h)
	ms := map[string]*manifest.Manifest{}
	for _, lp := range plugins {
		m, err := manifest.Load(lp.dir, manifest.LoadOptions{AppVersion: host.AppVersion})
		if err != nil {
			b.Fatal(err)
		}
		ms[lp.name] = m
		p, err := h.Add(m, host.Config{Admit: registry.AnyFolder})
		if err != nil {
			b.Fatal(err)
		}
		echo(b, p, lp.name, 0) // compiles into the cache on disk
		b.Run("call/"+strings.ReplaceAll(lp.name, " ", "_"), func(b *testing.B) {
			for b.Loop() {
				echo(b, p, lp.name, 1)
			}
		})
	}
	for _, kind := range []string{"activation", "warm_activation"} {
		for _, lp := range plugins {
			activations(b, kind, home, lp, ms[lp.name])
		}
	}
}

// activations times the activation of m, in a new host each time, warmed
// up first for warm_activation.
func activations(b *testing.B, kind, home string, lp cliPlugin, m *manifest.Manifest) {
	warm := kind == "warm_activation"
	{
		b.Run(kind+"/"+strings.ReplaceAll(lp.name, " ", "_"), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				fresh, wt := libraryHost(b, home)
				if warm {
					warmUp(b, wt, []*manifest.Manifest{m})
				}
				b.StartTimer()
				p, err := fresh.Add(m, host.Config{Admit: registry.AnyFolder})
				if err != nil {
					b.Fatal(err)
				}
				echo(b, p, lp.name, 1)
				b.StopTimer()
				closeHost(fresh)
				b.StartTimer()
			}
		})
	}
}

// closeHost closes h, waiting for its plugins to stop.
func closeHost(h *host.Host) {
	ctx, cancel := context.WithTimeout(context.Background(), closeWait)
	defer cancel()
	h.Close(ctx)
}
