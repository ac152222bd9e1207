package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/modules"
)

// missingBuild refuses a plugin whose program is not built yet, naming
// the build of its kind (modules.BuildOf): a run of it would only fail at
// its first start, or say nothing at all.
func missingBuild(m *manifest.Manifest) error {
	if err := modules.BuildOf(m).Missing(); err != nil {
		return fmt.Errorf("%s: not started: %v", filepath.Join(m.Dir, manifest.FileName), err)
	}
	return nil
}

// warnStale writes a warning when m's plugin.wasm or bundle is older than
// one of its sources: the classic "why didn't my change take".
func warnStale(w io.Writer, command string, m *manifest.Manifest) {
	if stale := modules.BuildOf(m).Stale(); stale != "" {
		fmt.Fprintf(w, "escouade-plugin %s: warning: %s\n", command, stale)
	}
}
