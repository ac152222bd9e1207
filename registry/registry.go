// Package registry records the plugins installed under the host's home:
// where each one's folder is, whether the user enabled it and what the user
// granted. It is one small JSON file, <home>/plugins.json, rewritten whole
// through a temporary file so a crash never leaves it half written.
package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/escouade-dev/escouade-plugin/internal/safefile"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/protocol"
)

// FileName is the registry file inside the home folder.
const FileName = "plugins.json"

// Entry is one installed plugin.
type Entry struct {
	ID       string               `json:"id"`
	Dir      string               `json:"dir"`
	Version  string               `json:"version"`
	Disabled bool                 `json:"disabled,omitempty"`
	Granted  manifest.Permissions `json:"granted"`
	// Consent is what the user said yes to at install; nil for an install
	// recorded before consents were (it needs a review).
	Consent *Consent `json:"consent,omitempty"`
	// Source is the git repository it was installed from, "" for a folder
	// (Dir is then the checkout under <home>/git).
	Source string `json:"source,omitempty"`
	// Dev, for a development install, is the run and the permissions the
	// person consented to: changes of the folder that keep to them start
	// without a review (dev.go). Nil for every other install.
	Dev *DevScope `json:"dev,omitempty"`
}

// The largest files of the home read: a registry entry is a few hundred
// bytes and a plugin's settings a few KiB, so these only stop a file that
// is not one of ours (a device, a file grown without end) from being read
// whole.
const (
	MaxRegistryBytes = protocol.RegistryFileBytes
	MaxSettingsBytes = protocol.SettingsFileBytes
)

// Registry is the set of installed plugins of one home.
type Registry struct {
	path    string
	entries map[string]Entry
}

// Open reads the registry of home; a missing file is an empty registry.
func Open(home string) (*Registry, error) {
	r := &Registry{path: filepath.Join(home, FileName), entries: map[string]Entry{}}
	data, err := safefile.Read(r.path, r.path, MaxRegistryBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return nil, err
	}
	var list []Entry
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("%s is damaged (%v): fix or remove it, then install the plugins again", r.path, err)
	}
	for _, e := range list {
		r.entries[e.ID] = e
	}
	return r, nil
}

// Get returns the entry of id.
func (r *Registry) Get(id string) (Entry, bool) {
	e, ok := r.entries[id]
	return e, ok
}

// Put adds or replaces an entry.
func (r *Registry) Put(e Entry) { r.entries[e.ID] = e }

// List returns the entries by id.
func (r *Registry) List() []Entry {
	list := make([]Entry, 0, len(r.entries))
	for _, e := range r.entries {
		list = append(list, e)
	}
	sort.Slice(list, func(a, b int) bool { return list[a].ID < list[b].ID })
	return list
}

// Save writes the registry back.
func (r *Registry) Save() error {
	data, err := json.MarshalIndent(r.List(), "", "  ")
	if err != nil {
		return err
	}
	return writeJSON(r.path, data)
}

// File modes of what this package writes: the plugins a user installed and
// the values they chose are theirs alone to read.
const (
	dirMode  os.FileMode = 0o700
	fileMode os.FileMode = 0o600
)

// writeJSON writes data and a newline to path through a temporary file
// renamed into place, so a crash never leaves the file half written.
func writeJSON(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), dirMode); err != nil {
		return err
	}
	return safefile.Replace(path, append(data, '\n'), fileMode)
}
