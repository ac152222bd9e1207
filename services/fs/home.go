package fs

import (
	"os"
	"path/filepath"

	"github.com/escouade-dev/escouade-plugin/services"
)

// homeFolder is the host's own folder (its home), which fs/* never reads
// nor changes, whatever root holds it: it keeps every plugin's journal,
// the registry of consents, the file keychain's secrets, and the compile
// caches, whose machine code the host runs as it is. A module granted a
// root that holds the home (the user's home folder, say) could otherwise
// read another plugin's secrets, or write code the host would run
// outside the sandbox. The plugin's own temporary folder, which lives in
// the home, is the one exception (docs/protocol.md#fs).
type homeFolder struct {
	home os.FileInfo // nil: no home to guard (none given, or missing)
	temp string      // the plugin's temporary folder, made when first used
}

func newHomeFolder(home, temp string) homeFolder {
	if home == "" {
		return homeFolder{}
	}
	info, err := os.Stat(home)
	if err != nil || !info.IsDir() {
		return homeFolder{}
	}
	return homeFolder{home: info, temp: temp}
}

// holds reports whether the path whose folderChain is chain is the home
// or inside it, and not inside the plugin's temporary folder. Folders are
// compared by identity, so that another spelling of the home is caught,
// and the deepest of the home and the temporary folder decides.
func (h homeFolder) holds(chain []os.FileInfo) bool {
	if h.home == nil {
		return false
	}
	var temp os.FileInfo
	if h.temp != "" {
		temp, _ = os.Stat(h.temp)
	}
	inside := false
	for _, info := range chain {
		switch {
		case !info.IsDir():
		case os.SameFile(info, h.home):
			inside = true
		case temp != nil && os.SameFile(info, temp):
			inside = false
		}
	}
	return inside
}

// refuseHome is the refusal of a path inside the host's home.
func refuseHome(loc Location) *services.Error {
	return forbidden(loc.Root, loc.Path, "inside Escouade's own folder (its home), which fs/* never reads nor changes: it holds other plugins' journals and secrets and the code the host runs")
}

// guard refuses rel, under root, when it is inside the host's home or
// another installed plugin's folder, and, for a change, inside the
// plugin's own folder.
func (s *Service) guard(root *os.Root, loc Location, rel string, change bool) *services.Error {
	_, refusal := s.judge(root, loc, rel, change)
	return refusal
}

// guardRemove is guard for fs/remove of the link-free path r, which also
// refuses a link or folder on the way to an installed plugin's folder.
func (s *Service) guardRemove(root *os.Root, loc Location, r resolved) *services.Error {
	others, refusal := s.judge(root, loc, r.path(), true)
	if refusal == nil && others.onTheWay(r.info) {
		refusal = refuseOther(loc)
	}
	return refusal
}

// judge is guard, giving the installed folders it read.
func (s *Service) judge(root *os.Root, loc Location, rel string, change bool) (fence, *services.Error) {
	chain := folderChain(root, loc.Dir, rel)
	if s.home.holds(chain) {
		return fence{}, refuseHome(loc)
	}
	others, err := installedNow(s.installed)
	if err != nil {
		return fence{}, unknownPlugins(loc)
	}
	other, inOwn := ofPlugins(chain, s.own, others)
	switch {
	case other:
		return others, refuseOther(loc)
	case change && inOwn:
		return others, refuseOwn(loc)
	case change && len(others.absent) > 0 && others.makes(filepath.Join(realDir(loc.Dir), filepath.FromSlash(rel))):
		return others, refuseOther(loc)
	}
	return others, nil
}
