package fs

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/escouade-dev/escouade-plugin/internal/safefile"
	"github.com/escouade-dev/escouade-plugin/services"
)

// ownFolder is the plugin's own folder, which fs/* never changes: its
// manifest and program are what the user consented to at install, and a
// module granted a root that holds the folder must not rewrite them
// (docs/protocol.md#fs). Reads stay as the grant says: the plugin ships
// those files and may read them.
type ownFolder struct {
	info os.FileInfo // nil: no folder to keep (none given, or missing)
}

func newOwnFolder(dir string) ownFolder {
	if dir == "" {
		return ownFolder{}
	}
	info, err := os.Stat(dir)
	if err != nil || !info.IsDir() {
		return ownFolder{}
	}
	return ownFolder{info: info}
}

// folderChain is what stands on the way to rel, a link-free path under
// root, from the top down: each folder above the root (links resolved),
// the root, then each existing name of rel. A name that is missing ends
// it: what is made below it is where its parent is.
func folderChain(root *os.Root, rootDir, rel string) []os.FileInfo {
	var up []string
	for p := realDir(rootDir); ; p = filepath.Dir(p) {
		up = append(up, p)
		if filepath.Dir(p) == p {
			break
		}
	}
	var chain []os.FileInfo
	for i := len(up) - 1; i >= 0; i-- {
		if info, err := os.Stat(up[i]); err == nil {
			chain = append(chain, info)
		}
	}
	if rel == "." || rel == "" {
		return chain
	}
	names := strings.Split(rel, "/")
	for k := 1; k <= len(names); k++ {
		info, err := root.Lstat(strings.Join(names[:k], "/"))
		if err != nil {
			break
		}
		chain = append(chain, info)
	}
	return chain
}

// realDir is dir with its links resolved, dir itself when it cannot be.
func realDir(dir string) string {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return real
	}
	return dir
}

// is reports whether info, of err, is the plugin's folder. Folders are
// compared by identity, not by name, so that another spelling of the
// folder (a link to it, a root reached through a link, a bind mount) is
// caught.
func (o ownFolder) is(info os.FileInfo, err error) bool {
	return o.info != nil && err == nil && info.IsDir() && os.SameFile(info, o.info)
}

// refuseOwn is the refusal of a change inside the plugin's own folder.
func refuseOwn(loc Location) *services.Error {
	return forbidden(loc.Root, loc.Path, "inside the plugin's own folder, which fs/* never changes: its manifest and program are what you consented to at install")
}

// hardLinked refuses a file with more than one name: a hard link inside a
// root may be a file outside it, which no path check can see (as the
// harness fence refuses them).
func hardLinked(loc Location, f *os.File, info os.FileInfo) *services.Error {
	if _, n, err := safefile.Identity(f, info); err == nil && n > 1 {
		return forbidden(loc.Root, loc.Path, "a file with "+strconv.FormatUint(n, 10)+" hard links: fs/* reads and writes only files with one name, as another name may be a file outside the root")
	}
	return nil
}
