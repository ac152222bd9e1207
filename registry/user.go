package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/escouade-dev/escouade-plugin/internal/safefile"
)

// Remove forgets the entry of id (uninstall); Save writes it down.
func (r *Registry) Remove(id string) { delete(r.entries, id) }

// SettingsDir holds, under the home, one JSON object per plugin of the
// values the user chose for its settings: <home>/plugin-settings/<id>.json,
// the file the CLI's --settings flag takes. Secret settings are never in
// it: they live in the keychain.
const SettingsDir = "plugin-settings"

// SettingsPath is the settings file of plugin id under home.
func SettingsPath(home, id string) string {
	return filepath.Join(home, SettingsDir, id+".json")
}

// LoadSettings reads the values the user chose for plugin id; a missing
// file is no value chosen.
func LoadSettings(home, id string) (map[string]json.RawMessage, error) {
	data, err := safefile.Read(SettingsPath(home, id), SettingsPath(home, id), MaxSettingsBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]json.RawMessage{}, nil
	}
	if err != nil {
		return nil, err
	}
	values := map[string]json.RawMessage{}
	if err := json.Unmarshal(data, &values); err != nil {
		return nil, fmt.Errorf("%s is damaged (%v): fix or remove it", SettingsPath(home, id), err)
	}
	return values, nil
}

// SaveSettings writes the values the user chose for plugin id, whole,
// through a temporary file.
func SaveSettings(home, id string, values map[string]json.RawMessage) error {
	data, err := json.MarshalIndent(values, "", "  ")
	if err != nil {
		return err
	}
	return writeJSON(SettingsPath(home, id), data)
}
