package wasm

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/escouade-dev/escouade-plugin/internal/safefile"
)

// staleCacheTemp is the age past which a temporary file of the compile
// cache is what a killed process left: a compile is bounded at 60 s
// (compilebound.go), a write of its result at milliseconds. A live
// writer's file is never that old.
const staleCacheTemp = time.Hour

// sweepCacheDepth bounds how deep the sweep looks:
// <cache>/<host version>/<runtime>/<file> is the deepest.
const sweepCacheDepth = 4

// sweepCacheTemps removes, under cacheDir, the temporary files that
// writes cut short by a kill left behind, once older than staleCacheTemp
// at now: the runtime's compiled code (<key>.<n>.tmp), the bytecode of a
// bundle (<n>.qbc.tmp) and the safefile writes of checked/ and stacked/
// (.<name>.<n>). Each can weigh megabytes and nothing else removes them.
func sweepCacheTemps(cacheDir string, now time.Time) {
	root := filepath.Clean(cacheDir)
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil
		case d.IsDir():
			if depth(root, path) >= sweepCacheDepth {
				return filepath.SkipDir
			}
			return nil
		case !d.Type().IsRegular() || !isCacheTemp(d.Name()):
			return nil
		}
		if info, err := d.Info(); err == nil && now.Sub(info.ModTime()) > staleCacheTemp {
			_ = os.Remove(path)
		}
		return nil
	})
}

func depth(root, path string) int {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == "." {
		return 0
	}
	return strings.Count(rel, string(filepath.Separator)) + 1
}

// isCacheTemp tells a temporary file's name from a kept file's: kept
// files are named by a hex digest, never start with a dot nor end in .tmp.
func isCacheTemp(name string) bool {
	return strings.HasSuffix(name, ".tmp") || safefile.IsTemporary(name)
}
