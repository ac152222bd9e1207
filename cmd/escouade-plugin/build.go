package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/host/wasm"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/modules"
)

// cmdBuild precompiles a run.wasm or run.js plugin into the compile cache
// under the home, after the checks the host makes before compiling: the
// bundle check of a run.js, version.json and the imports of a module. A
// run.wasm naming a Cargo.toml is first built with cargo into plugin.wasm
// (cargo.go). Each refusal is printed with what to fix, and the exit code
// is 1.
func cmdBuild(e env, args []string) error {
	home, asJSON, pos, err := homeFlags("build", args, nil)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one plugin folder: escouade-plugin build DIR")
	}
	m, err := manifest.Load(pos[0], manifest.LoadOptions{AppVersion: host.AppVersion})
	if err != nil {
		return err
	}
	res := buildResult{ID: m.ID, Kind: string(m.Run.Kind())}
	progress := progressTo(e.stderr, asJSON)
	ctx := context.Background()
	start := time.Now()
	var took time.Duration
	if src := cargoSource(m); src != "" {
		err = buildCargo(ctx, home, m.Dir, src, progress)
	}
	cachedBefore := wasm.CachedModules(modules.CacheDir(home), host.AppVersion)
	if err == nil {
		took, err = precompile(ctx, home, m, progress)
	}
	if cargoSource(m) != "" {
		took = time.Since(start)
	}
	res.Ms = took.Milliseconds()
	switch {
	case err != nil:
		res.Refused = err.Error()
	case isModule(m):
		res.Compiled = true
		res.Cached = wasm.CachedModules(modules.CacheDir(home), host.AppVersion) == cachedBefore
	}
	if asJSON {
		if err := writeJSON(e.stdout, res); err != nil {
			return err
		}
	} else {
		res.print(e.stdout, m)
	}
	if err != nil {
		return errFailed
	}
	return nil
}

// buildResult is what build reports.
type buildResult struct {
	ID       string `json:"id"`
	Kind     string `json:"kind"`
	Compiled bool   `json:"compiled"`
	// Cached says the compile cache already held the code: it was read
	// back, not compiled again.
	Cached  bool   `json:"cached"`
	Ms      int64  `json:"ms"`
	Refused string `json:"refused,omitempty"`
}

func (r buildResult) print(w io.Writer, m *manifest.Manifest) {
	switch {
	case r.Refused != "":
		fmt.Fprintf(w, "%s: not compiled: %s\n", filepath.Join(m.Dir, manifest.FileName), r.Refused)
	case !r.Compiled:
		fmt.Fprintf(w, "%s: nothing to compile: its program is %s\n", m.ID, kindText(m))
	case r.Cached:
		fmt.Fprintf(w, "%s: already in the compile cache, read back in %d ms (not compiled again)\n", m.ID, r.Ms)
	default:
		fmt.Fprintf(w, "%s: compiled into the cache (%d ms)\n", m.ID, r.Ms)
	}
}

func kindText(m *manifest.Manifest) string {
	if m.Run.Kind() == manifest.RunNone {
		return "absent (a declarative plugin)"
	}
	return "a process"
}

func isModule(m *manifest.Manifest) bool {
	k := m.Run.Kind()
	return k == manifest.RunWASM || k == manifest.RunJS
}

// precompile checks and compiles a module plugin's code into the cache
// under home; a process or a declarative plugin has nothing to compile.
func precompile(ctx context.Context, home string, m *manifest.Manifest, progress func(string)) (time.Duration, error) {
	if !isModule(m) {
		return 0, nil
	}
	start := time.Now()
	err := modules.Compiler(home, "")(ctx, m, progress)
	return time.Since(start), err
}

// progressTo writes compile progress lines to w, unless the output is
// JSON (then they would only be noise on stderr for a script).
func progressTo(w io.Writer, quiet bool) func(string) {
	if quiet {
		return nil
	}
	return func(line string) { fmt.Fprintln(w, line) }
}
