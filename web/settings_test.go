package web

import (
	"encoding/json"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/escouade-dev/escouade-plugin/manifest"
)

func declared(t *testing.T) map[string]manifest.Setting {
	t.Helper()
	var m struct {
		Contributes struct {
			Settings map[string]manifest.Setting `json:"settings"`
		} `json:"contributes"`
	}
	if err := json.Unmarshal([]byte(fixtureManifest("1.0.0")), &m); err != nil {
		t.Fatal(err)
	}
	return m.Contributes.Settings
}

func TestReadSettings(t *testing.T) {
	s := &Server{lang: "en"}
	cases := []struct {
		name    string
		form    url.Values
		values  map[string]string
		refused map[string]string
		secrets []secretChange
	}{
		{
			name: "defaults are left out",
			form: url.Values{"greeting": {"hello"}, "retries": {"3"}, "mode": {`"fast"`}},
		},
		{
			name:   "typed values",
			form:   url.Values{"greeting": {" hi "}, "retries": {" 7 "}, "ratio": {"1e-3"}, "mode": {`"slow"`}, "verbose": {"true"}},
			values: map[string]string{"greeting": `" hi "`, "retries": "7", "ratio": "0.001", "mode": `"slow"`, "verbose": "true"},
		},
		{
			name:   "an empty number is its default",
			form:   url.Values{"greeting": {""}, "retries": {""}, "ratio": {" "}, "mode": {`"fast"`}},
			values: map[string]string{"greeting": `""`},
		},
		{
			name: "bad values are refused with the reason",
			form: url.Values{"retries": {"2.5"}, "ratio": {"NaN"}, "mode": {`"medium"`}},
			refused: map[string]string{
				"retries": "2.5 is not a whole number",
				"ratio":   "NaN is not a number",
				"mode":    `"medium" is not one of its choices`,
			},
		},
		{
			name:    "a secret typed, and one kept",
			form:    url.Values{"mode": {`"fast"`}, "apiKey": {"k"}},
			values:  map[string]string{"greeting": `""`},
			secrets: []secretChange{{key: "apiKey", value: "k"}},
		},
		{
			name:    "a secret cleared",
			form:    url.Values{"mode": {`"fast"`}, "greeting": {"hello"}, "apiKey.clear": {"true"}},
			secrets: []secretChange{{key: "apiKey", clear: true}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			values, secrets, refused := s.readSettings(declared(t), c.form)
			got := map[string]string{}
			for k, v := range values {
				got[k] = string(v)
			}
			wantValues := c.values
			if wantValues == nil {
				wantValues = map[string]string{}
			}
			if c.refused != nil {
				// Only the refusals matter when some value is refused.
				got, wantValues = nil, nil
			}
			if diff := cmp.Diff(wantValues, got); diff != "" {
				t.Errorf("values (-want +got):\n%s", diff)
			}
			wantRefused := c.refused
			if wantRefused == nil {
				wantRefused = map[string]string{}
			}
			if diff := cmp.Diff(wantRefused, refused); diff != "" {
				t.Errorf("refused (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.secrets, secrets, cmp.AllowUnexported(secretChange{})); diff != "" {
				t.Errorf("secrets (-want +got):\n%s", diff)
			}
		})
	}
}

// Whatever the form holds, readSettings keeps only declared, non-secret
// keys, each of its declared type, or refuses it.
func FuzzReadSettings(f *testing.F) {
	f.Add("retries", "12", "mode", `"slow"`)
	f.Add("ratio", "1e999", "greeting", "\x00")
	f.Add("apiKey", "v", "apiKey.clear", "true")
	decl := map[string]manifest.Setting{}
	json.Unmarshal([]byte(`{
		"greeting": {"type": "string"}, "retries": {"type": "integer", "default": 3},
		"ratio": {"type": "number"}, "mode": {"type": "enum", "enum": ["fast", 2]},
		"verbose": {"type": "boolean"}, "apiKey": {"type": "secret"}}`), &decl)
	s := &Server{lang: "en"}
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		values, _, refused := s.readSettings(decl, url.Values{k1: {v1}, k2: {v2}})
		for k, raw := range values {
			st, ok := decl[k]
			if !ok || st.Type == manifest.SettingSecret {
				t.Fatalf("kept %q, not a declared non-secret setting", k)
			}
			if _, bad := refused[k]; bad {
				t.Fatalf("%q both kept and refused", k)
			}
			var v any
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Fatalf("%q kept as invalid JSON %s", k, raw)
			}
			switch st.Type {
			case manifest.SettingString:
				_, ok = v.(string)
			case manifest.SettingInteger:
				n, isNum := v.(float64)
				ok = isNum && n == float64(int64(n))
			case manifest.SettingNumber:
				_, ok = v.(float64)
			case manifest.SettingBoolean:
				_, ok = v.(bool)
			case manifest.SettingEnum:
				ok = string(raw) == `"fast"` || string(raw) == "2"
			}
			if !ok {
				t.Fatalf("%q kept as %s, not a %s", k, raw, st.Type)
			}
		}
	})
}
