package manifest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestActivation(t *testing.T) {
	tests := []struct {
		name       string
		activation []string
		event      string
		has, hits  bool
	}{
		{"none", nil, "ticket.column", false, false},
		{"listed event", []string{"event:ticket.column"}, "ticket.column", true, true},
		{"other event", []string{"event:ticket.column"}, "ticket.created", true, false},
		{"onCall only", []string{"onCall"}, "ticket.column", true, false},
		{"onCall is not an event", []string{"onCall"}, "onCall", true, false},
		{"prefix given by mistake", []string{"event:ticket.column"}, "event:ticket.column", true, false},
		{"empty event", []string{"event:x"}, "", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &Manifest{Activation: tt.activation}
			if got := m.HasActivation(); got != tt.has {
				t.Errorf("HasActivation() = %v, want %v", got, tt.has)
			}
			if got := m.Activates(tt.event); got != tt.hits {
				t.Errorf("Activates(%q) = %v, want %v", tt.event, got, tt.hits)
			}
		})
	}
}

func TestRunKind(t *testing.T) {
	tests := []struct {
		run  *Run
		want RunKind
	}{
		{nil, RunNone},
		{&Run{}, RunNone},
		{&Run{Command: []string{"./bin"}}, RunProcess},
		{&Run{JS: "dist/plugin.mjs"}, RunJS},
		{&Run{WASM: "Cargo.toml"}, RunWASM},
	}
	for _, tt := range tests {
		if got := tt.run.Kind(); got != tt.want {
			t.Errorf("%+v.Kind() = %q, want %q", tt.run, got, tt.want)
		}
	}
}

func TestHarnessDefaults(t *testing.T) {
	data := manifestWith(t, set("/contributes/harnesses",
		`[{"id":"bare","name":"Bare","locate":{"names":["bare"]},"acp":{}},
		  {"id":"set","name":"Set","locate":{"names":["set"]},"versionArgs":["version","--json"],"acp":{"fs":false}},
		  {"id":"empty","name":"Empty","versionArgs":[],"acp":{"fs":true},"locate":{"names":["e"]}},
		  {"id":"code","name":"Code"}]`))
	m, err := Parse(data, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	type defaults struct {
		VersionArgs []string
		Described   bool
		FS          bool
	}
	var got []defaults
	for _, h := range m.Contributes.Harnesses {
		d := defaults{VersionArgs: h.VersionArgs(), Described: h.Described()}
		if h.ACP != nil {
			d.FS = h.ACP.FS()
		}
		got = append(got, d)
	}
	want := []defaults{
		{[]string{"--version"}, true, true},
		{[]string{"version", "--json"}, true, false},
		{[]string{}, true, true},
		{[]string{"--version"}, false, false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	var reads []bool
	for _, h := range m.Contributes.Harnesses {
		reads = append(reads, h.ReadsVersion())
	}
	if diff := cmp.Diff([]bool{true, true, false, true}, reads); diff != "" {
		t.Errorf("ReadsVersion (-want +got):\n%s", diff)
	}
	// An empty versionArgs says something: it is written back as read.
	out, err := json.Marshal(m.Contributes.Harnesses[2])
	if err != nil || !strings.Contains(string(out), `"versionArgs":[]`) {
		t.Errorf("written back as %s (%v)", out, err)
	}
	args := m.Contributes.Harnesses[1].VersionArgs()
	args[0] = "changed"
	if got := m.Contributes.Harnesses[1].VersionArgs()[0]; got != "version" {
		t.Errorf("VersionArgs returned the harness's own slice: now %q", got)
	}
}

func TestCaps(t *testing.T) {
	data := manifestWith(t, set("/contributes/harnesses",
		`[{"id":"h","name":"H","caps":{"modes":["default"],"images":true,"pdf":false,"readOnly":"yes","limits":{"x":1}}}]`))
	m, err := Parse(data, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	caps := m.Contributes.Harnesses[0].Caps
	got := map[string]bool{}
	for _, name := range []string{"images", "pdf", "readOnly", "limits", "audio", "modes"} {
		got[name] = caps.Has(name)
	}
	want := map[string]bool{"images": true, "pdf": false, "readOnly": false, "limits": false, "audio": false, "modes": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Has (-want +got):\n%s", diff)
	}
	if !caps.Offers("default") || caps.Offers("bypassPermissions") {
		t.Errorf("Offers: default %v, bypassPermissions %v; want true, false", caps.Offers("default"), caps.Offers("bypassPermissions"))
	}
}

func TestACPExtensions(t *testing.T) {
	acp := &ACP{Extensions: []string{ExtensionCursor}}
	if !acp.HasExtension("cursor") || acp.HasExtension("zed") {
		t.Error("HasExtension does not match the list")
	}
}
