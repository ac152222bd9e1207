package fs

import (
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/escouade-dev/escouade-plugin/services"
	"github.com/escouade-dev/escouade-plugin/vocab"
	"github.com/escouade-dev/escouade-plugin/vocab/proto"
)

func (s *Service) read(ctx context.Context, params json.RawMessage) (any, error) {
	return s.handler(false, readText)(ctx, params)
}

func (s *Service) list(ctx context.Context, params json.RawMessage) (any, error) {
	return s.handler(false, listFolder)(ctx, params)
}

func (s *Service) stat(ctx context.Context, params json.RawMessage) (any, error) {
	return s.handler(false, statPath)(ctx, params)
}

func (s *Service) remove(ctx context.Context, params json.RawMessage) (any, error) {
	return s.handler(true, removePath)(ctx, params)
}

func (s *Service) mkdir(ctx context.Context, params json.RawMessage) (any, error) {
	return s.handler(true, makeFolder)(ctx, params)
}

// existing walks loc and refuses a missing path.
func existing(root *os.Root, loc Location, followLast bool) (resolved, *services.Error) {
	r, refusal := walk(root, loc, followLast)
	if refusal != nil {
		return resolved{}, refusal
	}
	if len(r.missing) > 0 {
		return resolved{}, missing(loc.Root, loc.Path)
	}
	return r, nil
}

// readText serves fs/read: UTF-8 text of a regular file, 8 MiB at most.
// The file opened must be the one the path names once opened, so a link
// swapped in meanwhile is caught.
func readText(s *Service, root *os.Root, loc Location) (any, *services.Error) {
	r, refusal := existing(root, loc, true)
	if refusal != nil {
		return nil, refusal
	}
	if refusal := s.guard(root, loc, r.path(), false); refusal != nil {
		return nil, refusal
	}
	if refusal := checkRegular(loc, r.info); refusal != nil {
		return nil, refusal
	}
	f, err := root.OpenFile(r.path(), os.O_RDONLY|nonBlocking, 0)
	if err != nil {
		return nil, osFailure(loc, err)
	}
	defer f.Close()
	if refusal := stillNamed(root, loc, f); refusal != nil {
		return nil, refusal
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxReadBytes+1))
	switch {
	case err != nil:
		return nil, osFailure(loc, err)
	case len(data) > MaxReadBytes:
		return nil, tooLarge(loc)
	case !utf8.Valid(data):
		return nil, failed(loc.Root, loc.Path, "not valid UTF-8")
	}
	return string(data), nil
}

func checkRegular(loc Location, info fs.FileInfo) *services.Error {
	switch {
	case info.IsDir():
		return failed(loc.Root, loc.Path, "a folder, not a file")
	case !info.Mode().IsRegular():
		return failed(loc.Root, loc.Path, "not a regular file (%s)", info.Mode().Type())
	case info.Size() > MaxReadBytes:
		return tooLarge(loc)
	}
	return nil
}

func tooLarge(loc Location) *services.Error {
	return failed(loc.Root, loc.Path, "over the limit of %d bytes (8 MiB)", MaxReadBytes)
}

func stillNamed(root *os.Root, loc Location, f *os.File) *services.Error {
	opened, err := f.Stat()
	if err != nil {
		return osFailure(loc, err)
	}
	again, refusal := existing(root, loc, true)
	if refusal != nil {
		return refusal
	}
	if !os.SameFile(opened, again.info) {
		return forbidden(loc.Root, loc.Path, "the folder changed while the file was opened")
	}
	if refusal := hardLinked(loc, f, opened); refusal != nil {
		return refusal
	}
	return checkRegular(loc, opened)
}

// write serves fs/write: a file made or replaced; its folder must exist.
func (s *Service) write(_ context.Context, params json.RawMessage) (any, error) {
	var p proto.FsWriteParams
	if bad := services.DecodeParams(params, &p); bad != nil {
		return nil, bad
	}
	root, loc, bad := s.open(proto.FsPathParams{Root: p.Root, Path: p.Path, Agent: p.Agent}, true)
	if bad != nil {
		return nil, bad
	}
	defer root.Close()
	if bad := s.writeText(root, loc, p.Text); bad != nil {
		return nil, bad
	}
	return nil, nil
}

// noFolder is the reason of a write whose folder is missing: fs/write
// answers no -32005 (the schema's errors), so it fails and names the fix.
const noFolder = "its folder does not exist (" + vocab.MethodFsMkdir + " makes it)"

func (s *Service) writeText(root *os.Root, loc Location, text string) *services.Error {
	r, refusal := walk(root, loc, true)
	if refusal != nil {
		return refusal
	}
	if refusal := s.guard(root, loc, r.full(), true); refusal != nil {
		return refusal
	}
	switch {
	case len(r.missing) > 1:
		// fs/write answers no -32005 (the schema's errors): a folder that
		// is not there is a write that fails.
		return failed(loc.Root, loc.Path, noFolder)
	case len(r.missing) == 0 && r.info.IsDir():
		return failed(loc.Root, loc.Path, "a folder, not a file")
	case len(r.missing) == 0 && !r.info.Mode().IsRegular():
		return failed(loc.Root, loc.Path, "not a regular file (%s)", r.info.Mode().Type())
	}
	// Not truncated at open: a file with another name is refused before
	// anything of it changes.
	f, err := root.OpenFile(r.full(), os.O_WRONLY|os.O_CREATE|nonBlocking, 0o644)
	if isMissing(err) {
		return failed(loc.Root, loc.Path, noFolder)
	}
	if err != nil {
		return osFailure(loc, err)
	}
	if refusal := writable(loc, f); refusal != nil {
		f.Close()
		return refusal
	}
	if _, err := io.WriteString(f, text); err != nil {
		f.Close()
		return osFailure(loc, err)
	}
	if err := f.Close(); err != nil {
		return osFailure(loc, err)
	}
	return nil
}

// writable checks the file opened for fs/write: a regular file with one
// name; it is then emptied for the new text.
func writable(loc Location, f *os.File) *services.Error {
	info, err := f.Stat()
	if err != nil {
		return osFailure(loc, err)
	}
	if !info.Mode().IsRegular() {
		return failed(loc.Root, loc.Path, "not a regular file (%s)", info.Mode().Type())
	}
	if refusal := hardLinked(loc, f, info); refusal != nil {
		return refusal
	}
	if err := f.Truncate(0); err != nil {
		return osFailure(loc, err)
	}
	return nil
}

// listFolder serves fs/list: the entries of a folder, by name.
func listFolder(s *Service, root *os.Root, loc Location) (any, *services.Error) {
	r, refusal := existing(root, loc, true)
	if refusal != nil {
		return nil, refusal
	}
	if refusal := s.guard(root, loc, r.path(), false); refusal != nil {
		return nil, refusal
	}
	if !r.info.IsDir() {
		return nil, failed(loc.Root, loc.Path, "not a folder")
	}
	f, err := root.Open(r.path())
	if err != nil {
		return nil, osFailure(loc, err)
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, osFailure(loc, err)
	}
	out := proto.FsListResult{}
	for _, e := range entries {
		if !loc.Hidden && strings.HasPrefix(e.Name(), ".") {
			continue
		}
		out = append(out, describeEntry(root, r.path()+"/"+e.Name(), e))
	}
	return out, nil
}

// describeEntry gives an entry's kind and size; a link within the root is
// described by its target.
func describeEntry(root *os.Root, path string, e fs.DirEntry) proto.FsEntry {
	info, err := e.Info()
	if err == nil && info.Mode()&fs.ModeSymlink != 0 {
		if target, err := root.Stat(path); err == nil {
			info = target
		}
	}
	if err != nil {
		return proto.FsEntry{Name: e.Name(), Dir: e.IsDir()}
	}
	entry := proto.FsEntry{Name: e.Name(), Dir: info.IsDir()}
	if !info.IsDir() {
		entry.Size = info.Size()
	}
	return entry
}

// statPath serves fs/stat.
func statPath(s *Service, root *os.Root, loc Location) (any, *services.Error) {
	r, refusal := existing(root, loc, true)
	if refusal != nil {
		return nil, refusal
	}
	if refusal := s.guard(root, loc, r.path(), false); refusal != nil {
		return nil, refusal
	}
	result := proto.FsStatResult{Dir: r.info.IsDir(), Modified: r.info.ModTime().UTC().Format(time.RFC3339Nano)}
	if !result.Dir {
		result.Size = r.info.Size()
	}
	return result, nil
}

// removePath serves fs/remove: a file, a link or an empty folder.
func removePath(s *Service, root *os.Root, loc Location) (any, *services.Error) {
	r, refusal := existing(root, loc, false)
	if refusal != nil {
		return nil, refusal
	}
	if len(r.names) == 0 {
		return nil, forbidden(loc.Root, loc.Path, "the root itself")
	}
	if refusal := s.guardRemove(root, loc, r); refusal != nil {
		return nil, refusal
	}
	if err := root.Remove(r.path()); err != nil {
		if r.info.IsDir() {
			if f, openErr := root.Open(r.path()); openErr == nil {
				names, _ := f.Readdirnames(1)
				f.Close()
				if len(names) > 0 {
					return nil, failed(loc.Root, loc.Path, "a folder that is not empty")
				}
			}
		}
		return nil, osFailure(loc, err)
	}
	return nil, nil
}

// makeFolder serves fs/mkdir: the folder and its missing parents.
func makeFolder(s *Service, root *os.Root, loc Location) (any, *services.Error) {
	r, refusal := walk(root, loc, true)
	if refusal != nil {
		return nil, refusal
	}
	if len(r.missing) == 0 {
		if !r.info.IsDir() {
			return nil, failed(loc.Root, loc.Path, "a file is in the way")
		}
		return nil, nil
	}
	if refusal := s.guard(root, loc, r.full(), true); refusal != nil {
		return nil, refusal
	}
	if err := root.MkdirAll(r.full(), 0o755); err != nil {
		return nil, osFailure(loc, err)
	}
	return nil, nil
}
