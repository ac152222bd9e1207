package services

import (
	"encoding/json"
	"testing"

	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/google/go-cmp/cmp"
)

func declaredSettings() map[string]manifest.Setting {
	return map[string]manifest.Setting{
		"channel": {Type: manifest.SettingString, Default: json.RawMessage(`"#general"`)},
		"ratio":   {Type: manifest.SettingNumber, Default: json.RawMessage(`0.5`)},
		"count":   {Type: manifest.SettingInteger, Default: json.RawMessage(`3`)},
		"notify":  {Type: manifest.SettingBoolean, Default: json.RawMessage(`true`)},
		"mode":    {Type: manifest.SettingEnum, Default: json.RawMessage(`"short"`), Enum: []json.RawMessage{json.RawMessage(`"short"`), json.RawMessage(`"long"`), json.RawMessage(`2`)}},
		"token":   {Type: manifest.SettingSecret},
		"label":   {Type: manifest.SettingString}, // no default
		"odd":     {Type: "color"},
	}
}

func raws(m map[string]string) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		out[k] = json.RawMessage(v)
	}
	return out
}

func TestResolveSettings(t *testing.T) {
	tests := []struct {
		name      string
		user      map[string]string
		project   *ProjectConfig
		want      map[string]any
		wantLines []line
	}{
		{
			name: "nothing chosen",
			want: map[string]any{},
		},
		{
			name: "user values of every type",
			user: map[string]string{"channel": `"#dev"`, "ratio": `0.25`, "count": `10`, "notify": `false`, "mode": `"long"`, "label": `""`},
			want: map[string]any{"channel": "#dev", "ratio": json.Number("0.25"), "count": json.Number("10"), "notify": false, "mode": "long", "label": ""},
		},
		{
			name: "user values at their default are left out",
			user: map[string]string{"channel": `"#general"`, "ratio": `0.50`, "count": `3.0`, "notify": `true`, "mode": `"short"`},
			want: map[string]any{},
		},
		{
			name: "a non-string enum value",
			user: map[string]string{"mode": `2.0`},
			want: map[string]any{"mode": json.Number("2.0")},
		},
		{
			name: "an integer keeps its exact text",
			user: map[string]string{"count": `9007199254740993`},
			want: map[string]any{"count": json.Number("9007199254740993")},
		},
		{
			name: "an integral number is an integer",
			user: map[string]string{"count": `4.0`, "ratio": `1e400`},
			want: map[string]any{"count": json.Number("4.0"), "ratio": json.Number("1e400")},
		},
		{
			name: "secret-typed, undeclared and unknown-typed user values never go out",
			user: map[string]string{"token": `"xoxb"`, "stale": `1`},
			want: map[string]any{},
		},
		{
			name: "user values of the wrong type are dropped with a line",
			user: map[string]string{"count": `2.5`, "notify": `"yes"`, "mode": `"medium"`, "ratio": `"1"`, "channel": `{`, "odd": `"red"`},
			want: map[string]any{},
			wantLines: []line{
				{"dropped", `settings/get: the user's value of "channel" is not a JSON value, not a string`},
				{"dropped", `settings/get: the user's value of "count" is a number, not an integer`},
				{"dropped", `settings/get: the user's value of "mode" is a string, not one of its enum values`},
				{"dropped", `settings/get: the user's value of "notify" is a string, not a boolean`},
				{"dropped", `settings/get: the user's value of "odd" is a string, not a color`},
				{"dropped", `settings/get: the user's value of "ratio" is a string, not a number`},
			},
		},
		{
			name:    "project values go first",
			user:    map[string]string{"channel": `"#dev"`, "count": `10`},
			project: &ProjectConfig{Values: map[string]any{"channel": "#web", "notify": false}},
			want:    map[string]any{"channel": "#web", "count": json.Number("10"), "notify": false},
		},
		{
			name:    "a project value at its default still overrides the user's",
			user:    map[string]string{"channel": `"#dev"`},
			project: &ProjectConfig{Values: map[string]any{"channel": "#general"}},
			want:    map[string]any{},
		},
		{
			name:    "project values of every YAML kind",
			project: &ProjectConfig{Values: map[string]any{"count": 7, "ratio": 0.75, "mode": 2, "label": "x"}},
			want:    map[string]any{"count": json.Number("7"), "ratio": json.Number("0.75"), "mode": json.Number("2"), "label": "x"},
		},
		{
			name:    "project values of the wrong type are dropped with a line",
			user:    map[string]string{"count": `10`},
			project: &ProjectConfig{Values: map[string]any{"count": "ten", "notify": "yes", "mode": "medium", "ratio": []any{1}, "channel": nil}},
			want:    map[string]any{"count": json.Number("10")},
			wantLines: []line{
				{"dropped", `settings/get: .escouade.yml of project "web" sets plugins.dev.escouade.slack.channel to null, not a string; ignored`},
				{"dropped", `settings/get: .escouade.yml of project "web" sets plugins.dev.escouade.slack.count to a string, not an integer; ignored`},
				{"dropped", `settings/get: .escouade.yml of project "web" sets plugins.dev.escouade.slack.mode to a string, not one of its enum values; ignored`},
				{"dropped", `settings/get: .escouade.yml of project "web" sets plugins.dev.escouade.slack.notify to a string, not a boolean; ignored`},
				{"dropped", `settings/get: .escouade.yml of project "web" sets plugins.dev.escouade.slack.ratio to an array, not a number; ignored`},
			},
		},
		{
			name:    "project values without a JSON form are dropped",
			project: &ProjectConfig{Values: map[string]any{"ratio": nan(), "label": map[any]any{1: "x"}}},
			want:    map[string]any{},
			wantLines: []line{
				{"dropped", `settings/get: .escouade.yml of project "web" sets plugins.dev.escouade.slack.label to not a JSON value, not a string; ignored`},
				{"dropped", `settings/get: .escouade.yml of project "web" sets plugins.dev.escouade.slack.ratio to not a JSON value, not a number; ignored`},
			},
		},
		{
			name:    "secret-typed and undeclared project values are dropped with a line",
			project: &ProjectConfig{Values: map[string]any{"token": "xoxb-leak", "colour": "red"}},
			want:    map[string]any{},
			wantLines: []line{
				{"dropped", `settings/get: .escouade.yml of project "web" sets plugins.dev.escouade.slack.colour, which the plugin does not declare; ignored`},
				{"dropped", `settings/get: .escouade.yml of project "web" sets plugins.dev.escouade.slack.token, a secret setting: secrets are never read from a project file; ignored`},
			},
		},
		{
			name:    "off in the project: the user's values only",
			user:    map[string]string{"channel": `"#dev"`},
			project: &ProjectConfig{Off: true, Values: map[string]any{"channel": "#web"}},
			want:    map[string]any{"channel": "#dev"},
			wantLines: []line{
				{"refused", `settings/get: dev.escouade.slack is off in project "web" (.escouade.yml: plugins.dev.escouade.slack: false); answering the user's settings only`},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			req := SettingsRequest{
				Declared: declaredSettings(), User: raws(tt.user), Project: tt.project,
				PluginID: "dev.escouade.slack", ProjectID: "web",
			}
			got := ResolveSettings(req, rec.journal)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantLines, rec.Lines()); diff != "" {
				t.Errorf("journal (-want +got):\n%s", diff)
			}
		})
	}
}

func nan() float64 {
	zero := 0.0
	return zero / zero
}

func TestResolveSettingsNilJournal(t *testing.T) {
	req := SettingsRequest{Declared: declaredSettings(), User: raws(map[string]string{"count": `"x"`})}
	if got := ResolveSettings(req, nil); len(got) != 0 {
		t.Errorf("ResolveSettings = %v, want empty", got)
	}
}

func TestSameJSON(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{`1`, `1.0`, true},
		{`1`, `1e0`, true},
		{`0.1`, `0.10`, true},
		{`1`, `2`, false},
		{`1`, `"1"`, false},
		{`"a"`, `"a"`, true},
		{`null`, `null`, true},
		{`null`, `false`, false},
		{`[1,"a"]`, `[1.0,"a"]`, true},
		{`[1]`, `[1,1]`, false},
		{`{"a":1}`, `{"a":1.0}`, true},
		{`{"a":1}`, `{"b":1}`, false},
		{`{"a":1}`, `{"a":1,"b":2}`, false},
		{`1e999999999999`, `1e999999999999`, true},
	}
	for _, tt := range tests {
		a, errA := decodeJSON([]byte(tt.a))
		b, errB := decodeJSON([]byte(tt.b))
		if errA != nil || errB != nil {
			t.Fatalf("decode %s, %s: %v, %v", tt.a, tt.b, errA, errB)
		}
		if got := sameJSON(a, b); got != tt.want {
			t.Errorf("sameJSON(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// FuzzResolveSettings checks the settings policy on any user value: the
// answer holds only declared non-secret keys, never a default, and always
// marshals to JSON.
func FuzzResolveSettings(f *testing.F) {
	for _, seed := range []string{`"#dev"`, `3`, `3.0`, `true`, `"long"`, `{`, `null`, `1e400`, `[1]`, `"x" 1`} {
		f.Add("count", seed)
		f.Add("token", seed)
	}
	declared := declaredSettings()
	f.Fuzz(func(t *testing.T, key, value string) {
		req := SettingsRequest{Declared: declared, User: map[string]json.RawMessage{key: json.RawMessage(value)}}
		got := ResolveSettings(req, nil)
		for k, v := range got {
			setting, ok := declared[k]
			if !ok || setting.Type == manifest.SettingSecret || !fitsType(setting, v) || isDefault(setting, v) {
				t.Fatalf("answer holds %q = %v", k, v)
			}
		}
		if _, err := json.Marshal(got); err != nil {
			t.Fatalf("answer %v does not marshal: %v", got, err)
		}
	})
}
