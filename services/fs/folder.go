package fs

import (
	"os"
	"path/filepath"

	"github.com/escouade-dev/escouade-plugin/services"
	"github.com/escouade-dev/escouade-plugin/vocab/proto"
)

// Folder gives the absolute path of an existing folder under a granted
// root, its links resolved within the root, for a program's working
// folder (proc/run). A program runs with the user's rights, so a
// read-only root is a valid place to run one. Unlike the other methods
// the path is then used by name: a folder swapped for a link after this
// check is not caught, which only matters for where the program starts.
func (r *Roots) Folder(root proto.FileRoot, path, agent string) (string, *services.Error) {
	loc, refusal := r.Resolve(root, path, agent)
	if refusal != nil {
		return "", refusal
	}
	dir, err := os.OpenRoot(loc.Dir)
	if err != nil {
		return "", failed(loc.Root, loc.Path, "the root's folder cannot be opened: %v", err)
	}
	defer dir.Close()
	res, refusal := existing(dir, loc, true)
	if refusal != nil && refusal.Code == services.CodeMissing {
		// proc/run answers no -32005: a missing working folder is a run
		// that fails.
		return "", failed(loc.Root, loc.Path, "no such folder")
	}
	if refusal != nil {
		return "", refusal
	}
	if !res.info.IsDir() {
		return "", failed(loc.Root, loc.Path, "not a folder")
	}
	return filepath.Join(loc.Dir, filepath.FromSlash(res.path())), nil
}
