package manifest

import (
	"encoding/json"
	"path"
	"path/filepath"
)

// FileName is the name of the manifest at the root of a plugin folder.
const FileName = "escouade-plugin.json"

// Manifest is a plugin's escouade-plugin.json, validated.
type Manifest struct {
	Schema      string      `json:"$schema,omitempty"`
	ID          string      `json:"id"`
	Name        Text        `json:"name"`
	Version     string      `json:"version"`
	Description Text        `json:"description,omitzero"`
	Author      *Author     `json:"author,omitempty"`
	License     string      `json:"license,omitempty"`
	Repository  string      `json:"repository,omitempty"`
	Escouade    Escouade    `json:"escouade"`
	Run         *Run        `json:"run,omitempty"`
	Activation  []string    `json:"activation,omitempty"`
	Permissions Permissions `json:"permissions,omitzero"`
	Limits      Limits      `json:"limits,omitzero"`
	Contributes Contributes `json:"contributes,omitzero"`

	// Dir is the plugin folder the manifest was loaded from (not in the JSON).
	Dir string `json:"-"`
}

// Author names who wrote the plugin.
type Author struct {
	Name string `json:"name"`
	URL  string `json:"url,omitempty"`
}

// Escouade says which protocol and app versions the plugin needs.
type Escouade struct {
	API string `json:"api"`
	Min string `json:"min,omitempty"`
}

// RunKind tells what a plugin's program is.
type RunKind string

const (
	RunNone    RunKind = ""        // declarative: nothing runs
	RunProcess RunKind = "process" // run.command
	RunJS      RunKind = "js"      // run.js, a bundle run in WASM
	RunWASM    RunKind = "wasm"    // run.wasm, plugin.wasm beside the manifest
)

// Run is the program of a plugin: exactly one field is set.
type Run struct {
	Command []string `json:"command,omitempty"`
	JS      string   `json:"js,omitempty"`
	WASM    string   `json:"wasm,omitempty"`
}

// Kind tells which program r describes; a nil Run is RunNone.
func (r *Run) Kind() RunKind {
	switch {
	case r == nil:
		return RunNone
	case len(r.Command) > 0:
		return RunProcess
	case r.JS != "":
		return RunJS
	case r.WASM != "":
		return RunWASM
	}
	return RunNone
}

// BundlePath is run.js as a path in the plugin's folder, cleaned and with
// forward slashes: the one spelling the consent record keys the bundle's
// digest by, the engine reads it by and its source map is found beside.
// It may still climb out of the folder ("../x"): its readers refuse that.
func (r *Run) BundlePath() string {
	return path.Clean(filepath.ToSlash(r.JS))
}

// Permissions is what a plugin asks for (in the manifest) or was granted
// (by the user, a subset of what it asks).
type Permissions struct {
	Secrets  []string `json:"secrets,omitempty"`
	Network  []string `json:"network,omitempty"`
	Files    []string `json:"files,omitempty"`
	Programs []string `json:"programs,omitempty"`
}

// Limits raises the WASM network limits (docs/protocol.md#netfetch).
type Limits struct {
	NetTimeoutMs int   `json:"netTimeoutMs,omitempty"`
	NetMaxBytes  int64 `json:"netMaxBytes,omitempty"`
}

// Contributes holds what the plugin adds to the app. Keys other than
// settings and harnesses are kept raw for the app.
type Contributes struct {
	Settings  map[string]Setting         `json:"settings,omitempty"`
	Harnesses []Harness                  `json:"harnesses,omitempty"`
	Other     map[string]json.RawMessage `json:"-"`
}

// SettingType is the declared type of a setting.
type SettingType string

const (
	SettingString  SettingType = "string"
	SettingNumber  SettingType = "number"
	SettingInteger SettingType = "integer"
	SettingBoolean SettingType = "boolean"
	SettingEnum    SettingType = "enum"
	SettingSecret  SettingType = "secret"
)

// Setting is one entry of contributes.settings.
type Setting struct {
	Type        SettingType       `json:"type"`
	Default     json.RawMessage   `json:"default,omitempty"`
	Enum        []json.RawMessage `json:"enum,omitempty"`
	Label       Text              `json:"label,omitzero"`
	Description Text              `json:"description,omitzero"`

	// Extra keeps the members this package does not know.
	Extra map[string]json.RawMessage `json:"-"`
}
