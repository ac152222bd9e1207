package wasm

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
)

// checkedFolder, inside a compile cache folder, holds one empty file per
// module whose function bodies passed the pre-pass (bounds.go): its name
// is the module's SHA-256, the memory limit and the bounds it passed. A
// later start of the same bytes skips the walk over every instruction,
// which costs a Go module over 100 ms of its start; a change of the
// bounds or of the limit names another file, so it is walked again.
//
// The mark is trusted no more than the compiled code beside it, which the
// host runs as it is: both are written by the host into the same folder.
// A mark that cannot be read or written only costs the walk.
const checkedFolder = "checked"

// boundsID names the bounds of the pre-pass and of the compile, so that
// a host whose bounds changed does not take another's marks for its own:
// a marked module skips its compile in a child (compilebound.go), and a
// mark from before that child did not pass its bounds.
var boundsID = func() string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d compiled within %s %d",
		maxLocalsPerFunction, maxLocals, maxFunctions, maxFunctionSize, maxCodeSize, maxNesting, maxNestingSquares,
		maxTypes, maxTableEntries, maxTables, maxGlobals, maxElements, maxDataSegments, maxImports, maxExports,
		DefaultCompileTime, DefaultCompileMemory))
	return hex.EncodeToString(sum[:4])
}()

// checkedMark is the mark's path for a module of the given SHA-256, or ""
// without a cache on disk.
func (t *Transport) checkedMark(hash string) string {
	if t.o.CacheDir == "" || hash == "" {
		return ""
	}
	name := fmt.Sprintf("%s-%dMB-%s", hash, t.o.Memory>>20, boundsID)
	return filepath.Join(CacheFolder(t.o.CacheDir, t.o.HostVersion), checkedFolder, name)
}

// bodiesChecked reports whether the module of hash passed the pre-pass
// before, at this memory limit.
func (t *Transport) bodiesChecked(hash string) bool {
	mark := t.checkedMark(hash)
	if mark == "" {
		return false
	}
	info, err := os.Lstat(mark)
	return err == nil && info.Mode().IsRegular()
}

// rememberChecked marks the module of hash as having passed the pre-pass,
// once it also compiled and its imports and exports were checked.
func (t *Transport) rememberChecked(hash string) {
	mark := t.checkedMark(hash)
	if mark == "" || t.bodiesChecked(hash) {
		return
	}
	if err := os.MkdirAll(filepath.Dir(mark), 0o700); err != nil {
		return
	}
	if f, err := os.OpenFile(mark, os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
		_ = f.Close()
	}
}
