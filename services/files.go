package services

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/escouade-dev/escouade-plugin/internal/safefile"
	"github.com/escouade-dev/escouade-plugin/protocol"
	"github.com/escouade-dev/escouade-plugin/vocab"
)

// MaxFileBytes is the largest file files/read hands out
// (docs/protocol.md#filesread).
const MaxFileBytes = protocol.ReadFileBytes

// maxLinkHops bounds the links followed for one path, as the kernel's
// ELOOP does, so a cycle of links ends in a refusal.
const maxLinkHops = 40

// ReadPluginFile reads path, relative to the plugin folder dir, as
// files/read does (docs/protocol.md#filesread). A refusal is an *Error: CodeForbidden
// for a path or a link the plugin may not follow, CodeMissing for a missing
// file, CodeFailed for a file over MaxFileBytes, not valid UTF-8 or not a
// regular file.
//
// Everything is opened through an os.Root, so no link can lead out of the
// folder between the check and the open; after the open the path is walked
// again and must still name the very file opened, so a link swapped in
// meanwhile (towards a hidden file) is caught too.
func ReadPluginFile(dir, path string) (string, error) {
	if why := checkPath(path); why != "" {
		return "", refuse(CodeForbidden, forbiddenFile, "%q: %s", path, why)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", refuse(CodeFailed, vocab.MessageFolderUnopened, "%q: %v", path, err)
	}
	defer root.Close()
	r := fileReader{root: root, path: path}
	text, refusal := r.read()
	if refusal != nil {
		return "", refusal
	}
	return text, nil
}

// fileReader reads one asked-for path of a plugin folder.
type fileReader struct {
	root *os.Root
	path string
}

func (r fileReader) read() (string, *Error) {
	resolved, info, refusal := r.walk()
	if refusal != nil {
		return "", refusal
	}
	// Checked before opening, so a device or a FIFO is never opened at all;
	// the open is non-blocking in case one is swapped in meanwhile.
	if refusal := r.checkInfo(info); refusal != nil {
		return "", refusal
	}
	f, err := safefile.OpenIn(r.root, resolved, r.path, MaxFileBytes)
	if err != nil {
		return "", r.unread(err)
	}
	defer f.Close()
	if refusal := r.checkStillNamed(f.Info()); refusal != nil {
		return "", refusal
	}
	return r.readText(f)
}

// walk follows path name by name, reading every link it meets, and returns
// the path of the file it names without any link, with that file's info.
func (r fileReader) walk() (string, fs.FileInfo, *Error) {
	w := walker{reader: r, pending: strings.Split(r.path, "/")}
	for len(w.pending) > 0 {
		if refusal := w.step(); refusal != nil {
			return "", nil, refusal
		}
	}
	resolved := strings.Join(w.resolved, "/")
	if len(w.resolved) == 0 {
		if w.hops > 0 {
			return "", nil, r.forbidden("a link whose target is the folder itself")
		}
		resolved = "." // the path names the folder: refused below as not a regular file
	}
	info, err := r.root.Lstat(resolved)
	if err != nil {
		return "", nil, r.openFailed(err)
	}
	if strings.HasSuffix(r.path, "/") && !info.IsDir() {
		// "notes.md/" names a folder there is not, as the system says.
		return "", nil, r.openFailed(syscall.ENOTDIR)
	}
	return resolved, info, nil
}

// walker is the state of one walk: the names resolved so far (none a
// link), the names still to go, and the links followed.
type walker struct {
	reader   fileReader
	resolved []string
	pending  []string
	hops     int
}

// step takes the next pending name: skips it, goes up, descends into it,
// or replaces it by the target of the link it is.
func (w *walker) step() *Error {
	name := w.pending[0]
	w.pending = w.pending[1:]
	switch name {
	case "", ".":
		return nil
	case "..":
		if len(w.resolved) == 0 {
			return w.reader.forbidden("a link whose target leaves the folder")
		}
		w.resolved = w.resolved[:len(w.resolved)-1]
		return nil
	}
	// The asked-for path passed checkPath: a name refused here comes from
	// a link's target.
	if why := checkSegment(name); why != "" {
		return w.reader.forbidden("a link whose target is " + why)
	}
	current := strings.Join(append(slices.Clip(w.resolved), name), "/")
	info, err := w.reader.root.Lstat(current)
	if err != nil {
		return w.reader.openFailed(err)
	}
	if info.Mode()&fs.ModeSymlink == 0 {
		w.resolved = append(w.resolved, name)
		return nil
	}
	if w.hops++; w.hops > maxLinkHops {
		return w.reader.forbidden("too many links")
	}
	target, refusal := w.reader.linkTarget(current)
	if refusal != nil {
		return refusal
	}
	w.pending = append(target, w.pending...)
	return nil
}

// linkTarget reads the link at name and splits its relative target.
func (r fileReader) linkTarget(name string) ([]string, *Error) {
	target, err := r.root.Readlink(name)
	if err != nil {
		return nil, r.openFailed(err)
	}
	target = strings.ReplaceAll(target, `\`, "/")
	if strings.HasPrefix(target, "/") || hasDrive(target) {
		return nil, r.forbidden("a link whose target leaves the folder")
	}
	return strings.Split(target, "/"), nil
}

func (r fileReader) checkInfo(info fs.FileInfo) *Error {
	switch {
	case !info.Mode().IsRegular():
		return r.failed(vocab.MessageNotRegularFile, "not a regular file (%s)", info.Mode().Type())
	case info.Size() > MaxFileBytes:
		return r.tooLarge()
	}
	return nil
}

// checkStillNamed makes sure the opened file is the one the path names now.
func (r fileReader) checkStillNamed(opened fs.FileInfo) *Error {
	_, named, refusal := r.walk()
	if refusal != nil {
		return refusal
	}
	if !os.SameFile(opened, named) {
		return r.forbidden("the folder changed while the file was opened")
	}
	return r.checkInfo(opened)
}

func (r fileReader) readText(f *safefile.File) (string, *Error) {
	data, err := f.ReadAll()
	if err != nil {
		return "", r.unread(err)
	}
	if !utf8.Valid(data) {
		return "", r.failed(vocab.MessageNotText, "not valid UTF-8")
	}
	return string(data), nil
}

// unread classifies a refusal of safefile: a file swapped in since the
// walk that is not regular or is too large, one that grew past the limit
// while read, or the system's error.
func (r fileReader) unread(err error) *Error {
	var refused *safefile.Error
	switch {
	case !errors.As(err, &refused):
		return r.failed(vocab.MessageFileUnreadable, "%v", err)
	case refused.Kind == safefile.ErrNotRegular:
		return r.failed(vocab.MessageNotRegularFile, "not a regular file (%s)", refused.What)
	case refused.Kind == safefile.ErrTooLarge:
		return r.tooLarge()
	}
	return r.openFailed(refused.Err)
}

// openFailed classifies an error of the file system on the way.
func (r fileReader) openFailed(err error) *Error {
	if nameTooLong(err) {
		// Checked first: some systems also call such a path missing.
		return r.failed(vocab.MessagePathTooLong, "a path too long for the system")
	}
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return refuse(CodeMissing, vocab.MessageNoSuchFile, "%q: no such file", r.path)
	}
	return r.failed(vocab.MessageFileUnreadable, "%v", err)
}

func (r fileReader) tooLarge() *Error {
	return r.failed(vocab.MessageFileTooLarge, "over the limit of %d bytes (256 KB)", MaxFileBytes)
}

func (r fileReader) forbidden(why string) *Error {
	return refuse(CodeForbidden, forbiddenFile, "%q: %s", r.path, why)
}

func (r fileReader) failed(message, format string, args ...any) *Error {
	return refuse(CodeFailed, message, "%q: %s", r.path, fmt.Sprintf(format, args...))
}
