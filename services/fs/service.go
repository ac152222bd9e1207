package fs

import (
	"context"
	"encoding/json"
	"os"

	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/protocol"
	"github.com/escouade-dev/escouade-plugin/services"
	"github.com/escouade-dev/escouade-plugin/vocab"
	"github.com/escouade-dev/escouade-plugin/vocab/proto"
)

// MaxReadBytes is the largest file fs/read hands out.
const MaxReadBytes = protocol.FsReadBytes

// Config is what a Service is made from.
type Config struct {
	PluginID string
	// Granted is what the user granted now; only Files is read.
	Granted manifest.Permissions
	// Roots gives the folders of an attached agent by its id.
	Roots RootsFunc
	// TempDir is the plugin's own temporary folder, made when first used.
	TempDir string
	// PluginDir is the plugin's folder: nothing in it is ever changed
	// through fs/*, whatever root holds it.
	PluginDir string
	// Home is the host's home: nothing in it is ever read or changed
	// through fs/*, whatever root holds it, but TempDir.
	Home string
	// Installed gives the installed plugins' folders, asked at each call:
	// nothing in them is ever read or changed through fs/*, whatever root
	// holds them, but PluginDir, read as granted. When it fails, every
	// call that reaches a path fails. nil: no plugin is installed.
	Installed InstalledFunc
}

// Service is the disk of one instance of a program.
type Service struct {
	roots     *Roots
	own       ownFolder
	home      homeFolder
	installed InstalledFunc
}

// New makes the disk of one instance.
func New(c Config) *Service {
	return &Service{roots: NewRoots(c.PluginID, c.Granted, c.Roots, c.TempDir), own: newOwnFolder(c.PluginDir),
		home: newHomeFolder(c.Home, c.TempDir), installed: c.Installed}
}

// Methods gives the handlers of fs/*.
func (s *Service) Methods() map[string]services.Handler {
	return map[string]services.Handler{
		vocab.MethodFsRead:   s.read,
		vocab.MethodFsWrite:  s.write,
		vocab.MethodFsList:   s.list,
		vocab.MethodFsStat:   s.stat,
		vocab.MethodFsRemove: s.remove,
		vocab.MethodFsMkdir:  s.mkdir,
	}
}

// Close holds nothing: every call opens and closes what it uses.
func (s *Service) Close() error { return nil }

// open judges the params' place and opens its root; write asks for a
// writable root.
func (s *Service) open(p proto.FsPathParams, write bool) (*os.Root, Location, *services.Error) {
	if p.Root == "" {
		return nil, Location{}, services.InvalidParams("params.root is required")
	}
	loc, refusal := s.roots.Resolve(p.Root, string(p.Path), string(p.Agent))
	if refusal != nil {
		return nil, Location{}, refusal
	}
	if write && !loc.Writable {
		return nil, Location{}, forbidden(loc.Root, loc.Path, "the root "+string(loc.Root)+" is read-only ("+string(loc.Root)+":ro)")
	}
	root, err := os.OpenRoot(loc.Dir)
	if err != nil {
		return nil, Location{}, failed(loc.Root, loc.Path, "the root's folder cannot be opened: %v", err)
	}
	return root, loc, nil
}

// pathParams decodes the params shared by every method but fs/write.
func pathParams(params json.RawMessage) (proto.FsPathParams, *services.Error) {
	var p proto.FsPathParams
	return p, services.DecodeParams(params, &p)
}

// handler runs op on the opened root of the params.
func (s *Service) handler(write bool, op func(*Service, *os.Root, Location) (any, *services.Error)) services.Handler {
	return func(_ context.Context, params json.RawMessage) (any, error) {
		p, bad := pathParams(params)
		if bad != nil {
			return nil, bad
		}
		root, loc, bad := s.open(p, write)
		if bad != nil {
			return nil, bad
		}
		defer root.Close()
		result, bad := op(s, root, loc)
		if bad != nil {
			return nil, bad
		}
		return result, nil
	}
}
