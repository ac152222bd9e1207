package wasm

import (
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/escouade-dev/escouade-plugin/internal/safefile"
)

// stackedFolder, inside a compile cache folder, holds each plugin module
// as the stack budget rewrote it (stack.go), named by the SHA-256 of the
// module's own bytes and what the rewrite depends on. The rewrite walks
// every instruction (tens of ms for a Go module) and the compiled code
// beside it is keyed by its result, so a start of bytes seen before reads
// the rewrite back instead. It is trusted as the compiled code beside it
// is: the host wrote both into its home, which no plugin reaches.
const stackedFolder = "stacked"

// stackRewriteVersion names the rewrite's rules with stackBudget: a
// change of either names other files.
const stackRewriteVersion = 1

// stackRewrites counts the rewrites made, so that a test sees which of
// the rewrite and the file acted.
var stackRewrites atomic.Int64

// stackedPath is where the rewrite of src's bytes, bounded again as b
// was (by the memory limit and the tables rule), is kept; "" without a
// cache on disk.
func (t *Transport) stackedPath(src source) string {
	if t.o.CacheDir == "" || src.hash == "" {
		return ""
	}
	name := fmt.Sprintf("%s-%dMB-t%v-%d-v%d.wasm", src.hash, t.o.Memory>>20, src.rt.tablesLimited, stackBudget, stackRewriteVersion)
	return filepath.Join(CacheFolder(t.o.CacheDir, t.o.HostVersion), stackedFolder, name)
}

// stackRewritten is b given its stack budget: read back when src's bytes
// were rewritten before, else rewritten and kept. A file that cannot be
// read or written only costs the rewrite.
func (t *Transport) stackRewritten(src source, b []byte) ([]byte, error) {
	path := t.stackedPath(src)
	if path != "" {
		if out, err := safefile.Read(path, filepath.Base(path), 2*MaxModuleBytes); err == nil {
			return out, nil
		}
	}
	stackRewrites.Add(1)
	out, err := instrumentStack(b)
	if err == nil && path != "" && os.MkdirAll(filepath.Dir(path), 0o700) == nil {
		_ = safefile.Replace(path, out, 0o600)
	}
	return out, err
}
