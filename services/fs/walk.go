package fs

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/escouade-dev/escouade-plugin/services"
)

// maxLinkHops bounds the links followed for one path, as the kernel's
// ELOOP does.
const maxLinkHops = 40

// resolved is what a path names under its root, without any link: the
// names that exist, and those still missing (for fs/write and fs/mkdir).
type resolved struct {
	names   []string
	missing []string
	info    fs.FileInfo // of the last existing name; nil when missing is not empty
}

// path is the link-free path of what exists, "." for the root itself.
func (r resolved) path() string {
	if len(r.names) == 0 {
		return "."
	}
	return strings.Join(r.names, "/")
}

// full is the link-free path with the missing names.
func (r resolved) full() string {
	return strings.Join(append(slices.Clip(r.names), r.missing...), "/")
}

// walker follows a path name by name inside an os.Root, reading each link
// it meets so that a link's target is judged by the same rules as the
// path: it must stay under the root, and under temp must not be hidden.
type walker struct {
	root       *os.Root
	loc        Location
	followLast bool // a link as the last name is followed (not for fs/remove)
	names      []string
	pending    []string
	hops       int
}

// walk resolves loc.Path under root.
func walk(root *os.Root, loc Location, followLast bool) (resolved, *services.Error) {
	w := &walker{root: root, loc: loc, followLast: followLast, pending: strings.Split(loc.Path, "/")}
	for len(w.pending) > 0 {
		done, refusal := w.step()
		if refusal != nil {
			return resolved{}, refusal
		}
		if done {
			return w.missingTail()
		}
	}
	info, err := root.Lstat(resolved{names: w.names}.path())
	if err != nil {
		return resolved{}, osFailure(loc, err)
	}
	return resolved{names: w.names, info: info}, nil
}

// step takes the next name; done is true when it does not exist, and the
// rest is a missing tail.
func (w *walker) step() (done bool, refusal *services.Error) {
	name := w.pending[0]
	switch name {
	case "", ".":
		w.pending = w.pending[1:]
		return false, nil
	case "..":
		if len(w.names) == 0 {
			return false, forbidden(w.loc.Root, w.loc.Path, "a link whose target leaves the root")
		}
		w.pending = w.pending[1:]
		w.names = w.names[:len(w.names)-1]
		return false, nil
	}
	if why := services.CheckRootName(name, w.loc.Hidden); why != "" {
		return false, forbidden(w.loc.Root, w.loc.Path, "a link whose target is "+why)
	}
	current := strings.Join(append(slices.Clip(w.names), name), "/")
	info, err := w.root.Lstat(current)
	if isMissing(err) {
		return true, nil
	}
	if err != nil {
		return false, osFailure(w.loc, err)
	}
	w.pending = w.pending[1:]
	if info.Mode()&fs.ModeSymlink == 0 || len(w.pending) == 0 && !w.followLast {
		w.names = append(w.names, name)
		return false, nil
	}
	return false, w.follow(current)
}

// follow replaces the link at current by its target's names.
func (w *walker) follow(current string) *services.Error {
	if w.hops++; w.hops > maxLinkHops {
		return forbidden(w.loc.Root, w.loc.Path, "too many links")
	}
	target, err := w.root.Readlink(current)
	if err != nil {
		return osFailure(w.loc, err)
	}
	target = strings.ReplaceAll(target, `\`, "/")
	if strings.HasPrefix(target, "/") || len(target) >= 2 && target[1] == ':' {
		return forbidden(w.loc.Root, w.loc.Path, "a link whose target leaves the root")
	}
	w.pending = append(strings.Split(target, "/"), w.pending...)
	return nil
}

// missingTail judges the names left when one does not exist: they will be
// made (fs/write, fs/mkdir), so none may climb or be refused.
func (w *walker) missingTail() (resolved, *services.Error) {
	var tail []string
	for _, name := range w.pending {
		switch {
		case name == "" || name == ".":
			continue
		case name == "..":
			return resolved{}, forbidden(w.loc.Root, w.loc.Path, "a link through a missing folder")
		}
		if why := services.CheckRootName(name, w.loc.Hidden); why != "" {
			return resolved{}, forbidden(w.loc.Root, w.loc.Path, "a link whose target is "+why)
		}
		tail = append(tail, name)
	}
	return resolved{names: w.names, missing: tail}, nil
}

func isMissing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// osFailure classifies an error of the file system.
func osFailure(loc Location, err error) *services.Error {
	switch {
	case isMissing(err):
		return missing(loc.Root, loc.Path)
	case errors.Is(err, fs.ErrPermission):
		return failed(loc.Root, loc.Path, "permission denied")
	case strings.Contains(err.Error(), "escapes from parent"):
		// os.Root's own refusal: a link changed under the walk.
		return forbidden(loc.Root, loc.Path, "a link whose target leaves the root")
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return failed(loc.Root, loc.Path, "%v", err)
}
