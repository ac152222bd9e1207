package harness

import (
	"errors"
	"fmt"
	"github.com/escouade-dev/escouade-plugin/acp"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
)

// Fence holds the folders of the private projects an agent must not touch
// through the host's fs methods (docs/harness.md#files-and-the-private-project-fence). The agent's own folder
// is never fenced off from it, even inside a private project.
type Fence struct {
	own     string   // the agent's folder, resolved
	private []string // fenced folders, resolved
	links   linkIndex
	// beforeOpen, when set (tests), runs between Check and the open in
	// Open: where a folder swap would have to happen.
	beforeOpen func()
}

// NewFence resolves the agent's folder and the fenced folders.
func NewFence(own string, private []string) (*Fence, error) {
	f := &Fence{}
	var err error
	if f.own, err = resolvePath(own); err != nil {
		return nil, fmt.Errorf("agent folder: %w", err)
	}
	for _, dir := range private {
		resolved, err := resolvePath(dir)
		if err != nil {
			return nil, fmt.Errorf("fenced folder: %w", err)
		}
		f.private = append(f.private, resolved)
	}
	return f, nil
}

// Holds tells whether any folder is fenced.
func (f *Fence) Holds() bool { return len(f.private) > 0 }

// InPrivateProject tells whether the agent's folder lies inside a fenced
// folder: the agent works in a private project.
func (f *Fence) InPrivateProject() bool {
	for _, dir := range f.private {
		if within(f.own, dir) {
			return true
		}
	}
	return false
}

// ErrFenced is the error of a path of another private project.
var ErrFenced = errors.New("the path belongs to another private project")

// Check resolves path (absolute, cleaned, its longest existing prefix
// followed through symlinks) and refuses it when it lies inside a fenced
// folder that is not the agent's own project. It returns the resolved path.
// Check alone does not make opening that path safe: use Open, which checks
// again what it opened.
func (f *Fence) Check(path string) (string, error) {
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("%q is not an absolute path", path)
	}
	resolved, err := resolvePath(path)
	if err != nil {
		return "", err
	}
	for _, dir := range f.private {
		if within(resolved, dir) && !within(f.own, dir) {
			return "", fmt.Errorf("%s: %w", path, ErrFenced)
		}
	}
	return resolved, nil
}

// Inside tells whether path, resolved, lies inside the agent's folder.
func (f *Fence) Inside(path string) bool {
	if !filepath.IsAbs(path) {
		return false
	}
	resolved, err := resolvePath(path)
	return err == nil && within(resolved, f.own)
}

// resolvePath makes path absolute and clean, then resolves its longest
// existing prefix through symlinks; the part that does not exist yet is
// joined back as written.
func resolvePath(path string) (string, error) {
	return resolveLinks(path, 0)
}

// maxLinkHops bounds the dangling links followed, as the kernel bounds
// symlink chains.
const maxLinkHops = 40

func resolveLinks(path string, hops int) (string, error) {
	if hops > maxLinkHops {
		return "", fmt.Errorf("%s: too many symbolic links", path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	var rest []string
	for cur := abs; ; {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(append([]string{real}, rest...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) && !isNotDir(err) {
			return "", err
		}
		// A link whose target does not exist yet still decides where a
		// write lands: follow it, never take it for a missing file.
		if target, lerr := os.Readlink(cur); lerr == nil {
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(cur), target)
			}
			return resolveLinks(filepath.Join(append([]string{target}, rest...)...), hops+1)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs, nil
		}
		rest = append([]string{filepath.Base(cur)}, rest...)
		cur = parent
	}
}

// isNotDir reports the error of a path that goes through a regular file.
func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }

// within compares by path components: /a/bc is not within /a/b.
func within(path, dir string) bool {
	p, d := components(path), components(dir)
	if len(p) < len(d) {
		return false
	}
	for i := range d {
		if !sameComponent(p[i], d[i]) {
			return false
		}
	}
	return true
}

func components(path string) []string {
	vol := filepath.VolumeName(path)
	parts := []string{vol}
	for _, c := range strings.Split(filepath.ToSlash(path[len(vol):]), "/") {
		if c != "" {
			parts = append(parts, c)
		}
	}
	return parts
}

// sameComponent compares case-insensitively on Windows, whose file
// systems are.
func sameComponent(a, b string) bool {
	if runtime.GOOS == "windows" {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// noticeUnfenced tells, once per tool call, that an agent doing its own
// file I/O ("fs": false) touched a path while a fence holds: the fence
// does not hold for those accesses.
func (s *Session) noticeUnfenced(it acp.Item) {
	if s.harness.ACP.FS() || !s.fence.Holds() || s.noticed[it.ID] {
		return
	}
	paths := cardPaths(it)
	if len(paths) == 0 {
		return
	}
	s.noticed[it.ID] = true
	s.emit(noticeItem(fmt.Sprintf(noticeUnfencedFormat, s.speaker(), strings.Join(uniq(paths), ", "))))
}

func uniq(list []string) []string {
	var out []string
	for _, s := range list {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
