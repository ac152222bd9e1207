package fs

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/escouade-dev/escouade-plugin/services"
)

// InstalledFunc gives the folders of the installed plugins as they are
// recorded now; an error means they cannot be known.
type InstalledFunc func() ([]string, error)

// fence is the installed plugins' folders at one call: fs/* neither reads
// nor changes anything in them, whatever root holds them, as a module
// that writes another plugin's program (a process plugin's run.sh) gets
// it run with the user's rights at that plugin's next start
// (docs/protocol.md#fs-plugin-folders).
type fence struct {
	folders []os.FileInfo // those that exist, compared by identity
	absent  []string      // those that do not, by their real spelling
	named   []string      // every folder as recorded
}

// installedNow asks for the installed folders; nil when none are given.
func installedNow(list InstalledFunc) (fence, error) {
	if list == nil {
		return fence{}, nil
	}
	dirs, err := list()
	if err != nil {
		return fence{}, err
	}
	f := fence{named: dirs}
	for _, dir := range dirs {
		if info, err := os.Stat(dir); err == nil && info.IsDir() {
			f.folders = append(f.folders, info)
		} else {
			f.absent = append(f.absent, realSpelling(dir))
		}
	}
	return f, nil
}

// ofPlugins tells, for the path whose folderChain is chain, whether the
// deepest plugin folder on its way is another plugin's (refused) or the
// plugin's own (served as the own folder is): a plugin installed inside
// another's folder is judged by its own.
func ofPlugins(chain []os.FileInfo, own ownFolder, others fence) (other, inOwn bool) {
	for _, info := range chain {
		switch {
		case !info.IsDir():
		case own.is(info, nil):
			other, inOwn = false, true
		case others.holdsFolder(info):
			other, inOwn = true, false
		}
	}
	return other, inOwn
}

func (f fence) holdsFolder(info os.FileInfo) bool {
	for _, folder := range f.folders {
		if os.SameFile(info, folder) {
			return true
		}
	}
	return false
}

// makes reports whether abs, a real path about to be made (fs/write of a
// new file, fs/mkdir), is an installed plugin's missing folder or inside
// it: a folder moved away or deleted must not be made again by a module
// under the name the host will start the plugin from. Case is ignored, as
// the disks of macOS and Windows ignore it; on another disk it only
// refuses a few more names.
func (f fence) makes(abs string) bool {
	for _, dir := range f.absent {
		if len(abs) < len(dir) || !strings.EqualFold(abs[:len(dir)], dir) {
			continue
		}
		if len(abs) == len(dir) || abs[len(dir)] == filepath.Separator {
			return true
		}
	}
	return false
}

// onTheWay reports whether removed, the Lstat of a link or empty folder
// about to be removed, is one of the names on the recorded way to an
// installed folder: removing a link there and making a folder in its
// place would put another program where the host starts the plugin from.
func (f fence) onTheWay(removed os.FileInfo) bool {
	if !removed.IsDir() && removed.Mode()&os.ModeSymlink == 0 {
		return false
	}
	for _, dir := range f.named {
		for p := filepath.Clean(dir); ; p = filepath.Dir(p) {
			if info, err := os.Lstat(p); err == nil && os.SameFile(info, removed) {
				return true
			}
			if filepath.Dir(p) == p {
				break
			}
		}
	}
	return false
}

// realSpelling is dir with the links of its longest existing part
// resolved, the missing rest kept as written.
func realSpelling(dir string) string {
	dir = filepath.Clean(dir)
	var rest []string
	for p := dir; ; p = filepath.Dir(p) {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(append([]string{real}, rest...)...)
		}
		if filepath.Dir(p) == p {
			return dir
		}
		rest = append([]string{filepath.Base(p)}, rest...)
	}
}

// refuseOther is the refusal of a path inside another plugin's folder.
func refuseOther(loc Location) *services.Error {
	return forbidden(loc.Root, loc.Path, "inside another installed plugin's folder, which fs/* never reads nor changes: its program runs at that plugin's next start")
}

// unknownPlugins fails a call when the installed plugins cannot be known:
// the fence is closed, not open. The registry's own error is left out:
// it names the home's path, which the plugin has no need of, and the
// CLI's list says it to the user.
func unknownPlugins(loc Location) *services.Error {
	return failed(loc.Root, loc.Path, "the installed plugins cannot be read, so fs/* reaches nothing until they can (Escouade's plugins.json is damaged or unreadable: escouade-plugin list says why)")
}
