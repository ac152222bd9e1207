package fs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/services"
	"github.com/escouade-dev/escouade-plugin/vocab"
	"github.com/escouade-dev/escouade-plugin/vocab/proto"
)

// AgentRoots are the folders of an attached agent; an empty one is a
// root the agent lacks.
type AgentRoots struct {
	Agent, Repo, Home string
}

// RootsFunc gives the folders of the attached agent agentID.
type RootsFunc func(agentID string) (AgentRoots, bool)

// Roots resolves the roots of permissions.files for one start of a
// plugin. It is shared by fs/* and proc/* (a program's cwd).
type Roots struct {
	pluginID string
	granted  map[proto.FileRoot]bool // root → writable
	agents   RootsFunc
	tempDir  string
}

// NewRoots reads the granted permissions.files entries (name or
// name:ro; a root granted both ways is writable).
func NewRoots(pluginID string, granted manifest.Permissions, agents RootsFunc, tempDir string) *Roots {
	r := &Roots{pluginID: pluginID, granted: map[proto.FileRoot]bool{}, agents: agents, tempDir: tempDir}
	for _, entry := range granted.Files {
		name, ro := strings.CutSuffix(entry, ":ro")
		root := proto.FileRoot(name)
		r.granted[root] = r.granted[root] || !ro
	}
	return r
}

// Location is a place under a root that passed the checks.
type Location struct {
	Root     proto.FileRoot
	Path     string // as asked
	Dir      string // the root's folder
	Writable bool
	Hidden   bool // hidden names allowed
}

// Resolve judges root and path for the agent the call names.
func (r *Roots) Resolve(root proto.FileRoot, path, agent string) (Location, *services.Error) {
	writable, ok := r.granted[root]
	if !ok {
		return Location{}, forbidden(root, path, fmt.Sprintf("the root %s is not in permissions.files of %s", root, r.pluginID))
	}
	loc := Location{Root: root, Path: path, Writable: writable, Hidden: root != proto.FileRootTemp}
	if why := services.CheckRootPath(path, loc.Hidden); why != "" {
		return Location{}, forbidden(root, path, why)
	}
	dir, refusal := r.dir(root, path, agent)
	if refusal != nil {
		return Location{}, refusal
	}
	loc.Dir = dir
	return loc, nil
}

// dir is the folder of a granted root.
func (r *Roots) dir(root proto.FileRoot, path, agent string) (string, *services.Error) {
	if root == proto.FileRootTemp {
		if r.tempDir == "" {
			return "", forbidden(root, path, "the plugin has no temporary folder")
		}
		if err := os.MkdirAll(r.tempDir, 0o700); err != nil {
			return "", failed(root, path, "the temporary folder cannot be made: %v", err)
		}
		return r.tempDir, nil
	}
	if agent == "" {
		return "", services.InvalidParams("params.agent is required for the root %s", root)
	}
	if r.agents == nil {
		return "", forbidden(root, path, fmt.Sprintf("no attached agent %q", agent))
	}
	roots, ok := r.agents(agent)
	if !ok {
		return "", forbidden(root, path, fmt.Sprintf("no attached agent %q", agent))
	}
	dir := map[proto.FileRoot]string{proto.FileRootAgent: roots.Agent, proto.FileRootAgentRepo: roots.Repo, proto.FileRootAgentHome: roots.Home}[root]
	if dir == "" || !filepath.IsAbs(dir) {
		return "", forbidden(root, path, fmt.Sprintf("the agent %q has no %s folder", agent, root))
	}
	return dir, nil
}

// Errors, each naming the root and the path.

func where(root proto.FileRoot, path string) string { return fmt.Sprintf("%s %q", root, path) }

func forbidden(root proto.FileRoot, path, why string) *services.Error {
	return &services.Error{Code: services.CodeForbidden, Message: vocab.MessageForbiddenFile, Reason: where(root, path) + ": " + why}
}

func missing(root proto.FileRoot, path string) *services.Error {
	return &services.Error{Code: services.CodeMissing, Message: vocab.MessageNoSuchFile, Reason: where(root, path) + ": no such file"}
}

func failed(root proto.FileRoot, path, format string, args ...any) *services.Error {
	return &services.Error{Code: services.CodeFailed, Message: vocab.MessageFileSystemFailed, Reason: where(root, path) + ": " + fmt.Sprintf(format, args...)}
}
