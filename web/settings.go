package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/escouade-dev/escouade-plugin/internal/safefile"
	"github.com/escouade-dev/escouade-plugin/internal/safetext"
	"github.com/escouade-dev/escouade-plugin/keychain"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/registry"
)

// settingField is one input of the Settings tab, made from
// contributes.settings.
type settingField struct {
	Key, ID, Type, Label, Description string
	Value                             string // what the input shows (never a secret)
	Checked                           bool   // a boolean's
	Options                           []option
	Default                           string // "Default: …"
	Stored                            bool   // a secret has a value in the keychain
}

type option struct {
	Value, Label string
	Selected     bool
}

// settingFields makes the inputs, by key, showing the user's values over
// the defaults. A refused value is shown by the script, beside its input.
func (s *Server) settingFields(rw row) []settingField {
	declared := rw.Manifest.Contributes.Settings
	user := rw.Plugin.Settings()
	keys := settingsOrder(rw.Manifest.Dir, declared)
	var out []settingField
	for i, key := range keys {
		st := declared[key]
		f := settingField{Key: key, ID: "setting-" + itoa(i), Type: string(st.Type), Label: safetext.Line(st.Label.In(s.lang)),
			Description: safetext.Line(st.Description.In(s.lang))}
		if f.Label == "" {
			f.Label = safetext.Line(key)
		}
		raw, chosen := user[key]
		if !chosen {
			raw = st.Default
		}
		f.Default = tr(s.lang, "settings.nodefault")
		if len(st.Default) > 0 {
			f.Default = tr(s.lang, "settings.default", safetext.Line(shown(st.Default)))
		}
		switch st.Type {
		case manifest.SettingSecret:
			f.Default = ""
			_, err := s.secretGet(rw.ID, key)
			f.Stored = err == nil
		case manifest.SettingBoolean:
			f.Checked = string(compact(raw)) == "true"
		case manifest.SettingEnum:
			for _, e := range st.Enum {
				f.Options = append(f.Options, option{Value: string(compact(e)), Label: safetext.Line(shown(e)), Selected: bytes.Equal(compact(e), compact(raw))})
			}
		default:
			f.Value = shown(raw)
		}
		out = append(out, f)
	}
	return out
}

// settingsOrder is the order the manifest writes contributes.settings in,
// as its author meant the form to read. The decoded manifest keeps a map,
// so the order is read again from the file; a key the file no longer has
// (it changed since it was loaded) comes after, by name.
func settingsOrder(dir string, declared map[string]manifest.Setting) []string {
	var keys []string
	for _, k := range manifestSettingKeys(dir) {
		if _, ok := declared[k]; ok && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	var rest []string
	for k := range declared {
		if !slices.Contains(keys, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	return append(keys, rest...)
}

// manifestSettingKeys are the keys of contributes.settings in the order
// the manifest file writes them; nil when it cannot be read.
func manifestSettingKeys(dir string) []string {
	path := filepath.Join(dir, manifest.FileName)
	data, err := safefile.Read(path, manifest.FileName, manifest.DefaultMaxSize) // as the loader bounds it
	if err != nil {
		return nil
	}
	var top struct {
		Contributes struct {
			Settings json.RawMessage `json:"settings"`
		} `json:"contributes"`
	}
	if json.Unmarshal(data, &top) != nil {
		return nil
	}
	return objectKeys(top.Contributes.Settings)
}

// objectKeys are the member names of a JSON object, in order.
func objectKeys(raw json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return keys
		}
		key, _ := tok.(string)
		keys = append(keys, key)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return keys
		}
	}
	return keys
}

// shown is a JSON value as a person reads it: a string without quotes.
func shown(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(compact(raw))
}

func compact(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// postSettings checks every value against its declared type, then writes
// them all or none: the values under the home (the file --settings reads),
// secret ones in the keychain. The program restarts with them if it runs.
func (s *Server) postSettings(w http.ResponseWriter, r *http.Request) {
	en, rw, _, ok := s.installed(w, r)
	if !ok {
		return
	}
	if rw.Plugin == nil {
		fail(w, http.StatusConflict, rw.State.Reason)
		return
	}
	if err := r.ParseForm(); err != nil {
		fail(w, http.StatusBadRequest, err.Error())
		return
	}
	values, secrets, refused := s.readSettings(rw.Manifest.Contributes.Settings, r.PostForm)
	if len(refused) > 0 {
		reply(w, http.StatusUnprocessableEntity, answer{Error: tr(s.lang, "settings.bad"), Fields: refused})
		return
	}
	s.changes.Lock()
	defer s.changes.Unlock()
	if err := s.writeSecrets(rw, secrets); err != nil {
		a := answer{Error: err.Error()}
		if out := (*keychainOutOfReach)(nil); errors.As(err, &out) {
			a.Fields = map[string]string{}
			for _, c := range secrets {
				a.Fields[c.key] = tr(s.lang, "bad.keychain.field")
			}
		}
		reply(w, http.StatusInternalServerError, a)
		return
	}
	if err := registry.SaveSettings(s.home, en.ID, values); err != nil {
		fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	if err := rw.Plugin.SetSettings(context.WithoutCancel(r.Context()), values); err != nil {
		fail(w, http.StatusInternalServerError, err.Error())
		return
	}
	done(w, answer{Message: tr(s.lang, "settings.saved"), Reload: true})
}

// secretChange is a secret setting typed (set) or to remove (clear).
type secretChange struct {
	key, value string
	clear      bool
}

// readSettings turns the form into values by key, leaving out those left
// at their default and those left empty, and says why each refused value
// is refused.
func (s *Server) readSettings(declared map[string]manifest.Setting, form url.Values) (map[string]json.RawMessage, []secretChange, map[string]string) {
	values := map[string]json.RawMessage{}
	var secrets []secretChange
	refused := map[string]string{}
	for key, st := range declared {
		text := form.Get(key)
		if st.Type == manifest.SettingSecret {
			if text != "" {
				secrets = append(secrets, secretChange{key: key, value: text})
			} else if form.Get(key+".clear") == "true" {
				secrets = append(secrets, secretChange{key: key, clear: true})
			}
			continue
		}
		raw, err := s.parseSetting(st, text)
		switch {
		case err != nil:
			refused[key] = err.Error()
		case raw == nil:
		case len(st.Default) > 0 && bytes.Equal(compact(raw), compact(st.Default)):
		default:
			values[key] = raw
		}
	}
	return values, secrets, refused
}

// parseSetting reads a typed text as a value of the setting's type; nil
// for an empty number, which means its default.
func (s *Server) parseSetting(st manifest.Setting, text string) (json.RawMessage, error) {
	trimmed := strings.TrimSpace(text)
	switch st.Type {
	case manifest.SettingString:
		return json.Marshal(text)
	case manifest.SettingBoolean:
		return json.RawMessage(strconv.FormatBool(text == "true")), nil
	case manifest.SettingNumber:
		if trimmed == "" {
			return nil, nil
		}
		f, err := strconv.ParseFloat(trimmed, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, errors.New(tr(s.lang, "bad.number", trimmed))
		}
		return json.RawMessage(strconv.FormatFloat(f, 'g', -1, 64)), nil
	case manifest.SettingInteger:
		if trimmed == "" {
			return nil, nil
		}
		n, err := strconv.ParseInt(trimmed, 10, 64)
		if err != nil {
			return nil, errors.New(tr(s.lang, "bad.integer", trimmed))
		}
		return json.RawMessage(strconv.FormatInt(n, 10)), nil
	case manifest.SettingEnum:
		for _, e := range st.Enum {
			if string(compact(e)) == text {
				return compact(e), nil
			}
		}
		return nil, errors.New(tr(s.lang, "bad.enum", text))
	}
	return nil, errors.New(tr(s.lang, "bad.type", string(st.Type)))
}

func (s *Server) writeSecrets(rw row, changes []secretChange) error {
	for _, c := range changes {
		name := keychain.PluginName(rw.ID, c.key)
		if s.kc == nil {
			return errors.New(tr(s.lang, "bad.keychain"))
		}
		if c.clear {
			if err := s.kc.Delete(keychain.Service, name); err != nil && !errors.Is(err, keychain.ErrNotFound) {
				return s.keychainError(err)
			}
			continue
		}
		if err := s.kc.Set(keychain.Service, name, c.value); err != nil {
			return s.keychainError(err)
		}
		rw.Plugin.Journal().Mask(c.value) // never readable in its journal, even before it asks
	}
	return nil
}

// keychainError names the fix of a keychain out of reach (no Secret
// Service: a machine without a desktop session), which the system
// keychain's own error leaves to the reader: `exec: "dbus-launch":
// executable file not found` says nothing of --keychain file.
// keychainOutOfReach is a save refused for a keychain out of reach (no
// Secret Service: a machine without a desktop session), said with its fix,
// which the system keychain's own error (`exec: "dbus-launch": executable
// file not found`) leaves to the reader.
type keychainOutOfReach struct{ sentence string }

func (e *keychainOutOfReach) Error() string { return e.sentence }

func (s *Server) keychainError(err error) error {
	if errors.Is(err, keychain.ErrUnavailable) {
		return &keychainOutOfReach{tr(s.lang, "bad.keychain.reach", err)}
	}
	return err
}

func (s *Server) secretGet(id, key string) (string, error) {
	if s.kc == nil {
		return "", keychain.ErrUnavailable
	}
	return s.kc.Get(keychain.Service, keychain.PluginName(id, key))
}
