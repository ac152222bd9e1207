package manifest

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestContributesKeepsUnknownKeys(t *testing.T) {
	data := manifestWith(t,
		set("/contributes/commands", `[{"id":"x"}]`),
		set("/contributes/theme", `{"dark":true}`),
		set("/contributes/settings", `{"s":{"type":"string","placeholder":"…"}}`),
		set("/contributes/harnesses", `[{"id":"h","name":"H","locate":{"names":["h"]},"ACP":{"fs":false},"acp":{"args":["acp"],"Args":["x"],"future":1}}]`),
	)
	m, err := Parse(data, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	type kept struct {
		Other, SettingExtra, HarnessExtra, ACPExtra map[string]string
		Args                                        []string
		FS                                          bool
	}
	h := m.Contributes.Harnesses[0]
	got := kept{
		Other:        rawStrings(m.Contributes.Other),
		SettingExtra: rawStrings(m.Contributes.Settings["s"].Extra),
		HarnessExtra: rawStrings(h.Extra),
		ACPExtra:     rawStrings(h.ACP.Extra),
		Args:         h.ACP.Args,
		FS:           h.ACP.FS(),
	}
	want := kept{
		Other:        map[string]string{"commands": `[{"id":"x"}]`, "theme": `{"dark":true}`},
		SettingExtra: map[string]string{"placeholder": `"…"`},
		// Names are case-sensitive: "ACP" and "Args" are unknown keys,
		// kept, and never read as acp or args.
		HarnessExtra: map[string]string{"ACP": `{"fs":false}`},
		ACPExtra:     map[string]string{"Args": `["x"]`, "future": `1`},
		Args:         []string{"acp"},
		FS:           true,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func rawStrings(m map[string]json.RawMessage) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = string(v)
	}
	return out
}

func TestContributesMarshal(t *testing.T) {
	tests := []struct {
		name string
		c    Contributes
		want string
	}{
		{"nothing", Contributes{}, `{}`},
		{"other only", Contributes{Other: map[string]json.RawMessage{"b": json.RawMessage(`2`), "a": json.RawMessage(` [ 1 ] `)}}, `{"a":[1],"b":2}`},
		{"a known name in Other is not written twice", Contributes{
			Settings: map[string]Setting{"k": {Type: SettingBoolean}},
			Other:    map[string]json.RawMessage{"settings": json.RawMessage(`{}`)},
		}, `{"settings":{"k":{"type":"boolean"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.c)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("Marshal = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestAbsentContributesStaysAbsent(t *testing.T) {
	out, err := json.Marshal(Manifest{ID: "dev.x.y", Name: PlainText("X"), Version: "1.0.0", Escouade: Escouade{API: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"dev.x.y","name":"X","version":"1.0.0","escouade":{"api":"1"}}`
	if string(out) != want {
		t.Errorf("Marshal = %s, want %s", out, want)
	}
}

func TestModeShapes(t *testing.T) {
	tests := []struct {
		in   string
		want Mode
		out  string
	}{
		{`"default"`, Mode{ID: "default"}, `"default"`},
		{`{"id":"auto","meaning":{"en":"All"}}`, Mode{ID: "auto", Meaning: Translated(Translation{"en", "All"})}, `{"id":"auto","meaning":{"en":"All"}}`},
		{`{"id":"auto"}`, Mode{ID: "auto"}, `"auto"`},
		{`{"id":"auto","ID":"other"}`, Mode{ID: "auto"}, `"auto"`},
	}
	for _, tt := range tests {
		var got Mode
		if err := json.Unmarshal([]byte(tt.in), &got); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Unmarshal(%s) (-want +got):\n%s", tt.in, diff)
		}
		out, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != tt.out {
			t.Errorf("Marshal = %s, want %s", out, tt.out)
		}
	}
}
