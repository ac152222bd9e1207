package fssvc

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

// holds reports whether rel, a link-free path under root (missing names
// included), is the plugin's folder or inside it. Folders are compared by
// identity, not by name, so that another spelling of the folder (a link
// to it, a root reached through a link, a bind mount) is caught: each
// folder above the root, the root, then each existing folder of rel.
func (o ownFolder) holds(root *os.Root, rootDir, rel string) bool {
	if o.info == nil {
		return false
	}
	real, err := filepath.EvalSymlinks(rootDir)
	if err != nil {
		real = rootDir
	}
	for p := real; ; p = filepath.Dir(p) {
		if o.is(os.Stat(p)) {
			return true
		}
		if filepath.Dir(p) == p {
			break
		}
	}
	if rel == "." || rel == "" {
		return false
	}
	names := strings.Split(rel, "/")
	for k := 1; k <= len(names); k++ {
		info, err := root.Lstat(strings.Join(names[:k], "/"))
		if err != nil {
			return false // missing: what is made below it is new
		}
		if o.is(info, nil) {
			return true
		}
	}
	return false
}

func (o ownFolder) is(info os.FileInfo, err error) bool {
	return err == nil && info.IsDir() && os.SameFile(info, o.info)
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
