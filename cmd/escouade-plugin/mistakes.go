package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/escouade-dev/escouade-plugin/internal/closest"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/registry"
	"github.com/escouade-dev/escouade-plugin/services"
)

// checkSecretFlags refuses a --secret the plugin can never read: its key is
// not granted by permissions.secrets, so the value would sit unused and
// the plugin would get null or -32001. A case typo names the close key.
func checkSecretFlags(m *manifest.Manifest, secrets pairs) error {
	declared := m.Permissions.Secrets
	where := filepath.Join(m.Dir, manifest.FileName)
	for _, kv := range secrets {
		key := kv[0]
		if services.KeyGranted(declared, key) {
			continue
		}
		if len(declared) == 0 {
			return usagef("--secret %s: %s asks for no secret (permissions.secrets is empty) (fix: add %q to permissions.secrets, or drop --secret)",
				key, where, key)
		}
		fix := fmt.Sprintf("use a key permissions.secrets grants: %s", strings.Join(declared, ", "))
		if near := closest.Match(key, grantedKeys(declared)); near != "" {
			fix = fmt.Sprintf("did you mean --secret %s=…? (keys are case-sensitive)", near)
		}
		return usagef("--secret %s: permissions.secrets of %s does not grant %q, so the plugin could never read it (fix: %s)",
			key, where, key, fix)
	}
	return nil
}

// grantedKeys are the entries a key can be compared with: exact keys, and
// patterns without their *.
func grantedKeys(entries []string) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = strings.TrimSuffix(e, "*")
	}
	return out
}

// checkSettings refuses a --settings file whose keys the manifest does not
// declare: the host would drop them and the plugin see its defaults, with
// nothing on the screen to say why.
func checkSettings(m *manifest.Manifest, file string, values map[string]json.RawMessage) error {
	declared := m.Contributes.Settings
	names := slices.Sorted(maps.Keys(declared))
	for _, key := range slices.Sorted(maps.Keys(values)) {
		s, ok := declared[key]
		switch {
		case ok && s.Type == manifest.SettingSecret:
			return usagef("--settings %s: %q is a secret setting: settings/get never carries it (fix: give it with --secret %s=VALUE, and drop it from %s)",
				file, key, key, file)
		case ok:
			continue
		case len(names) == 0:
			return usagef("--settings %s: %q is not a setting of %s: its contributes.settings declares none (fix: declare it in contributes.settings of %s, or drop it)",
				file, key, m.ID, filepath.Join(m.Dir, manifest.FileName))
		}
		fix := fmt.Sprintf("use a declared key (%s), or declare %q in contributes.settings", strings.Join(names, ", "), key)
		if near := closest.Match(key, names); near != "" {
			fix = fmt.Sprintf("did you mean %q?", near)
		}
		return usagef("--settings %s: %q is not a setting of %s, so the host would drop it (fix: %s)", file, key, m.ID, fix)
	}
	return nil
}

// warnNoActivation warns that a plugin with a program but no activation
// never runs: valid, yet almost always a mistake.
func warnNoActivation(w io.Writer, m *manifest.Manifest) {
	if m.Run.Kind() == manifest.RunNone || m.HasActivation() {
		return
	}
	fmt.Fprintf(w, "warning: %s: /activation: missing: \"run\" names a program but nothing starts it, so it never runs (fix: add \"activation\": [\"onCall\"])\n",
		filepath.Join(m.Dir, manifest.FileName))
}

// installedState finds the plugin of dir in the registry of home: run
// honours a disable, as the app would not start a disabled plugin. A
// copy of the plugin elsewhere (another folder with the same id) is not
// the installed one and runs as it is.
func installedState(home string, m *manifest.Manifest) (registry.Entry, bool) {
	reg, err := registry.Open(home)
	if err != nil {
		return registry.Entry{}, false
	}
	en, ok := reg.Get(m.ID)
	if !ok {
		return registry.Entry{}, false
	}
	dir, err := filepath.Abs(m.Dir)
	if err != nil || filepath.Clean(en.Dir) != dir {
		return registry.Entry{}, false
	}
	return en, true
}
