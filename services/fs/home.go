package fssvc

import (
	"os"
	"path/filepath"
	"strings"

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

// holds reports whether rel, a link-free path under root (missing names
// included), is the home or inside it, and not inside the plugin's
// temporary folder. Folders are compared by identity, from the top down
// (each folder above the root, the root, then each existing folder of
// rel), so that another spelling of the home is caught and the deepest of
// the home and the temporary folder decides.
func (h homeFolder) holds(root *os.Root, rootDir, rel string) bool {
	if h.home == nil {
		return false
	}
	var temp os.FileInfo
	if h.temp != "" {
		temp, _ = os.Stat(h.temp)
	}
	inside := false
	see := func(info os.FileInfo) {
		switch {
		case info == nil || !info.IsDir():
		case os.SameFile(info, h.home):
			inside = true
		case temp != nil && os.SameFile(info, temp):
			inside = false
		}
	}
	for _, dir := range ancestors(rootDir) {
		info, _ := os.Stat(dir)
		see(info)
	}
	if rel == "." || rel == "" {
		return inside
	}
	names := strings.Split(rel, "/")
	for k := 1; k <= len(names); k++ {
		info, err := root.Lstat(strings.Join(names[:k], "/"))
		if err != nil {
			break // missing: what is made below it is where its parent is
		}
		see(info)
	}
	return inside
}

// ancestors is dir, links resolved, and every folder above it, from the
// top down.
func ancestors(dir string) []string {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		real = dir
	}
	var up []string
	for p := real; ; p = filepath.Dir(p) {
		up = append(up, p)
		if filepath.Dir(p) == p {
			break
		}
	}
	for i, j := 0, len(up)-1; i < j; i, j = i+1, j-1 {
		up[i], up[j] = up[j], up[i]
	}
	return up
}

// refuseHome is the refusal of a path inside the host's home.
func refuseHome(loc Location) *services.Error {
	return forbidden(loc.Root, loc.Path, "inside Escouade's own folder (its home), which fs/* never reads nor changes: it holds other plugins' journals and secrets and the code the host runs")
}

// guard refuses rel, under root, when it is inside the host's home, and,
// for a change, inside the plugin's own folder.
func (s *Service) guard(root *os.Root, loc Location, rel string, change bool) *services.Error {
	if s.home.holds(root, loc.Dir, rel) {
		return refuseHome(loc)
	}
	if change && s.own.holds(root, loc.Dir, rel) {
		return refuseOwn(loc)
	}
	return nil
}
