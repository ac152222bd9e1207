package services

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/vocab"
)

// SettingsRequest holds what settings/get answers from.
type SettingsRequest struct {
	// Declared is contributes.settings of the manifest.
	Declared map[string]manifest.Setting
	// User holds the values the user chose in the app, by key.
	User map[string]json.RawMessage
	// Project is the project's config for the plugin; nil without a project.
	Project *ProjectConfig

	// PluginID and ProjectID only name things in journal lines.
	PluginID  string
	ProjectID string
}

// ResolveSettings computes the answer of settings/get (docs/protocol.md#settingsget): the
// user's values without those left at their default and never a
// secret-typed one; then, unless the project switches the plugin off, the
// project's values for declared non-secret keys, which go first. A value
// of the wrong type is dropped with a journal line; journal may be nil.
func ResolveSettings(req SettingsRequest, journal func(tag, text string)) map[string]any {
	r := resolver{req: req, journal: journal, answer: map[string]any{}}
	r.applyUser()
	if req.Project != nil {
		r.applyProject()
	}
	return r.answer
}

type resolver struct {
	req     SettingsRequest
	journal func(tag, text string)
	answer  map[string]any
}

func (r *resolver) note(tag, format string, args ...any) {
	if r.journal != nil {
		r.journal(tag, fmt.Sprintf(format, args...))
	}
}

// applyUser keeps the user's values of declared non-secret keys. Values of
// keys no longer declared (or now secret) are the app's leftovers after an
// update and are skipped without a line; a value of the wrong type is a
// fault worth telling.
func (r *resolver) applyUser() {
	for _, key := range sortedKeys(r.req.User) {
		setting, ok := r.req.Declared[key]
		if !ok || setting.Type == manifest.SettingSecret {
			continue
		}
		value, err := decodeJSON(r.req.User[key])
		if err != nil || !fitsType(setting, value) {
			r.note(TagDropped, vocab.MethodSettingsGet+": the user's value of %q is %s, not %s", key, describe(value, err), typeName(setting))
			continue
		}
		r.set(key, setting, value)
	}
}

func (r *resolver) applyProject() {
	if r.req.Project.Off {
		r.note(TagRefused, vocab.MethodSettingsGet+": %s is off in project %q (%s: plugins.%s: false); answering the user's settings only",
			r.req.PluginID, r.req.ProjectID, ProjectFileName, r.req.PluginID)
		return
	}
	for _, key := range sortedKeys(r.req.Project.Values) {
		r.applyProjectValue(key, r.req.Project.Values[key])
	}
}

func (r *resolver) applyProjectValue(key string, raw any) {
	where := fmt.Sprintf(vocab.MethodSettingsGet+": %s of project %q sets plugins.%s.%s", ProjectFileName, r.req.ProjectID, r.req.PluginID, key)
	setting, ok := r.req.Declared[key]
	switch {
	case !ok:
		r.note(TagDropped, "%s, which the plugin does not declare; ignored", where)
		return
	case setting.Type == manifest.SettingSecret:
		r.note(TagDropped, "%s, a secret setting: secrets are never read from a project file; ignored", where)
		return
	}
	value, err := toJSON(raw)
	if err != nil || !fitsType(setting, value) {
		r.note(TagDropped, "%s to %s, not %s; ignored", where, describe(value, err), typeName(setting))
		return
	}
	r.set(key, setting, value)
}

// set records value under key, or removes the key when value is the
// default: the answer never holds defaults, and a project value equal to
// the default still overrides the user's.
func (r *resolver) set(key string, setting manifest.Setting, value any) {
	if isDefault(setting, value) {
		delete(r.answer, key)
		return
	}
	r.answer[key] = value
}

func isDefault(setting manifest.Setting, value any) bool {
	if len(setting.Default) == 0 {
		return false
	}
	def, err := decodeJSON(setting.Default)
	return err == nil && sameJSON(def, value)
}

// fitsType reports whether a decoded JSON value is of the setting's
// declared type. Secret-typed and unknown types fit nothing.
func fitsType(setting manifest.Setting, value any) bool {
	switch setting.Type {
	case manifest.SettingString:
		_, ok := value.(string)
		return ok
	case manifest.SettingNumber:
		_, ok := value.(json.Number)
		return ok
	case manifest.SettingInteger:
		n, ok := value.(json.Number)
		return ok && isInteger(n)
	case manifest.SettingBoolean:
		_, ok := value.(bool)
		return ok
	case manifest.SettingEnum:
		return slices.ContainsFunc(setting.Enum, func(raw json.RawMessage) bool {
			allowed, err := decodeJSON(raw)
			return err == nil && sameJSON(allowed, value)
		})
	}
	return false
}

func typeName(setting manifest.Setting) string {
	switch setting.Type {
	case manifest.SettingInteger:
		return "an integer"
	case manifest.SettingEnum:
		return "one of its enum values"
	case "":
		return "of a declared type"
	}
	return "a " + string(setting.Type)
}

// describe names the kind of a value that failed to decode or convert.
func describe(value any, err error) string {
	if err != nil {
		return "not a JSON value"
	}
	return valueKind(value)
}
