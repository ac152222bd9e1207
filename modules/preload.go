package modules

import (
	"context"
	"fmt"

	"github.com/escouade-dev/escouade-plugin/host/wasm"
	"github.com/escouade-dev/escouade-plugin/manifest"
)

// Preload compiles every enabled module and bundle installed under home
// into t, the running host's WASM transport (Configure's), and keeps it
// there: the compiled code read back from the cache and decoded once, at
// the host's start, so a plugin's activation later in the day, and each
// restart, instantiates it and reads nothing compiled again. It is
// meant to run in the background after Warm (docs/embedding.md); a
// plugin that does not compile is noted and left to its start, which
// says why. Each module held costs the host its compiled code and its
// decoded module until the host closes (docs/PERFORMANCE.md).
//
// Nothing of a plugin runs: only its module or bundle is compiled.
func Preload(ctx context.Context, t *wasm.Transport, home string, progress func(string)) (WarmReport, error) {
	if progress == nil {
		progress = func(string) {}
	}
	ms, err := installedModules(home)
	if err != nil {
		return WarmReport{}, err
	}
	return eachModule(ctx, ms, func(_ int, m *manifest.Manifest) error {
		err := BuildOf(m).Missing()
		if err == nil {
			err = t.Precompile(ctx, m, nil)
		}
		if err != nil && ctx.Err() == nil {
			progress(fmt.Sprintf("%s was not loaded ahead: %v", m.ID, err))
		}
		return err
	})
}
