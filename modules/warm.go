package modules

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/host/wasm"
	"github.com/escouade-dev/escouade-plugin/internal/safefile"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/registry"
)

// warmedFile, in a host version's compile cache folder, says that every
// module and bundle installed when that version first started was
// compiled into it: later installs compile at install (Compiler).
const warmedFile = "installed-compiled"

// WarmReport says what Warm did.
type WarmReport struct {
	// Compiled are the ids of the plugins compiled (or found compiled).
	Compiled []string
	// Failed holds, by id, why a plugin could not be compiled: its start
	// will say the same.
	Failed map[string]error
	// AlreadyWarm says this host version had warmed its cache before:
	// nothing was compiled.
	AlreadyWarm bool
}

// Warm compiles every enabled module and bundle installed under home into
// the compile cache of hostVersion (empty: the app version), once per
// host version: the compile cache is kept per version, so the first start
// of a new Escouade would otherwise pay each module's whole compile at
// its first activation (seconds for a Go module). It is meant to run in
// the background when a host starts (docs/embedding.md), and says each
// step through progress; a plugin that does not compile is noted and
// skipped. Its compiles are a plugin's start's: in a child, under the
// compile bounds (docs/protocol.md#limits), and a start of the same
// module meanwhile waits for nothing more than its own compile.
//
// Nothing of a plugin runs: only its module or bundle is compiled.
func Warm(ctx context.Context, home, hostVersion string, progress func(string)) (WarmReport, error) {
	if progress == nil {
		progress = func(string) {}
	}
	if hostVersion == "" {
		hostVersion = host.AppVersion
	}
	marker := filepath.Join(wasm.CacheFolder(CacheDir(home), hostVersion), warmedFile)
	if _, err := os.Stat(marker); err == nil {
		return WarmReport{AlreadyWarm: true}, nil
	}
	ms, err := installedModules(home)
	if err != nil {
		return WarmReport{}, err
	}
	compile := Compiler(home, hostVersion)
	report, err := eachModule(ctx, ms, func(i int, m *manifest.Manifest) error {
		progress(fmt.Sprintf("compiling the installed plugins for this version of Escouade: %s (%d of %d)…", m.ID, i+1, len(ms)))
		err := compile(ctx, m, nil)
		if err != nil && ctx.Err() == nil {
			progress(fmt.Sprintf("%s was not compiled: %v", m.ID, err))
		}
		return err
	})
	if err != nil {
		return report, err
	}
	if len(ms) > 0 {
		progress(fmt.Sprintf("the installed plugins are compiled for this version of Escouade (%d of %d)", len(report.Compiled), len(ms)))
	}
	return report, markWarm(marker)
}

// eachModule runs do on each of ms in turn, and reports which went
// through and which failed; it stops at ctx's end.
func eachModule(ctx context.Context, ms []*manifest.Manifest, do func(i int, m *manifest.Manifest) error) (WarmReport, error) {
	report := WarmReport{Failed: map[string]error{}}
	for i, m := range ms {
		if err := do(i, m); ctx.Err() != nil {
			return report, ctx.Err()
		} else if err != nil {
			report.Failed[m.ID] = err
			continue
		}
		report.Compiled = append(report.Compiled, m.ID)
	}
	return report, nil
}

// installedModules are the enabled module and bundle plugins of home, by
// id; a folder whose manifest no longer loads is left to its start, which
// says why.
func installedModules(home string) ([]*manifest.Manifest, error) {
	r, err := registry.Open(home)
	if err != nil {
		return nil, err
	}
	var ms []*manifest.Manifest
	for _, e := range r.List() {
		if e.Disabled {
			continue
		}
		m, err := manifest.Load(e.Dir, manifest.LoadOptions{AppVersion: host.AppVersion})
		if err != nil || m.ID != e.ID {
			continue
		}
		if k := m.Run.Kind(); k == manifest.RunWASM || k == manifest.RunJS {
			ms = append(ms, m)
		}
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].ID < ms[j].ID })
	return ms, nil
}

// markWarm writes the marker; a cache folder that could not be made (a
// read-only home) is no fault: the next start warms again.
func markWarm(marker string) error {
	if err := os.MkdirAll(filepath.Dir(marker), 0o700); err != nil {
		return nil
	}
	err := safefile.Replace(marker, []byte("every module installed when this version first started is compiled here\n"), 0o600)
	if errors.Is(err, fs.ErrPermission) {
		return nil
	}
	return err
}
