package wasm

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"
)

// cacheEntries counts the compiled modules kept in the compile cache, or
// gives -1 without a cache on disk.
func (t *Transport) cacheEntries() int {
	if t.o.CacheDir == "" {
		return -1
	}
	return CachedModules(t.o.CacheDir, t.o.HostVersion)
}

// CachedModules counts the compiled modules kept in the compile cache of
// cacheDir for hostVersion. A compile that leaves the count as it was read
// its code back from the cache: wazero says nothing of a hit, and a person
// seeing "compiling… 716 ms" on every start would think the cache did not
// work.
func CachedModules(cacheDir, hostVersion string) int {
	n := 0
	_ = filepath.WalkDir(CacheFolder(cacheDir, hostVersion), func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && (d.Name() == checkedFolder || d.Name() == stackedFolder) {
			return filepath.SkipDir // the pre-pass's marks and rewrites, not compiled code
		}
		if err == nil && d.Type().IsRegular() && !strings.HasSuffix(d.Name(), ".tmp") {
			n++
		}
		return nil
	})
	return n
}

// firstCompileLine says, before a module's first compile, what the wait
// is and that it is once: a module is compiled to machine code on its
// first start (seconds for a Go module), then read back from the cache.
func firstCompileLine(src source) string {
	return fmt.Sprintf("compiling %s (%s) to machine code for its first start; this is done once, then it is kept in the compile cache…", src.name, sizeText(len(src.bytes)))
}

// preparingLine is the progress line of a compile that lasts: it cannot
// yet tell a compile from a read of the cache.
func preparingLine(src source) string {
	return fmt.Sprintf("preparing %s (%s): compiling it, or reading its compiled code from the cache…", src.name, sizeText(len(src.bytes)))
}

// preparedLine says what the time went to, once it is known.
func (t *Transport) preparedLine(src source, before int, took time.Duration) string {
	switch after := t.cacheEntries(); {
	case before < 0:
		return fmt.Sprintf("compiled %s in %s", src.name, spentText(took))
	case after == before:
		return fmt.Sprintf("read %s's compiled code from the compile cache in %s (not compiled again: the time went to loading that code)", src.name, spentText(took))
	}
	return fmt.Sprintf("compiled %s in %s, kept in the compile cache: the next start reads it back", src.name, spentText(took))
}

// spentText writes a measured time: "716 ms", "8.1 s".
func spentText(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}
