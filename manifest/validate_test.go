package manifest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseAcceptsMinimal(t *testing.T) {
	m, err := Parse([]byte(minimalManifest), LoadOptions{AppVersion: "2.2.0"})
	if err != nil {
		t.Fatal(err)
	}
	want := &Manifest{
		ID:       "dev.example.test",
		Name:     PlainText("Test"),
		Version:  "1.0.0",
		Escouade: Escouade{API: "1"},
	}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestParseAccepts(t *testing.T) {
	tests := []struct {
		name  string
		edits []edit
	}{
		{"min equal to the app", []edit{set("/escouade/min", `"2.2.0"`)}},
		{"min older than the app", []edit{set("/escouade/min", `"2.1.9"`)}},
		{"min a prerelease of the app", []edit{set("/escouade/min", `"2.2.0-beta.1"`)}},
		{"run command", []edit{set("/run", `{"command":["./bin/plugin","--stdio"]}`), set("/activation", `["onCall"]`)}},
		{"run js", []edit{set("/run", `{"js":"dist/plugin.mjs"}`)}},
		{"run wasm", []edit{set("/run", `{"wasm":"Cargo.toml"}`)}},
		{"activation events", []edit{set("/activation", `["event:ticket.column","onCall","event:agent/turn"]`)}},
		{"secret keys and prefix patterns", []edit{set("/permissions/secrets", `["webhook","account:*","a.b*"]`)}},
		{"every files root", []edit{set("/permissions/files", `["agent","agent:ro","agentRepo","agentRepo:ro","agentHome","agentHome:ro","temp","temp:ro"]`)}},
		{"network hosts", []edit{set("/permissions/network", `["slack.com","192.0.2.1","::1","{account}","local:shared","api.example.com:8443"]`)}},
		{"programs", []edit{set("/permissions/programs", `["git","rg"]`)}},
		{"limits at their maximum", []edit{set("/limits", `{"netTimeoutMs":120000,"netMaxBytes":67108864}`)}},
		{"every setting type", []edit{set("/contributes/settings", `{
			"s":{"type":"string","default":"x"},"n":{"type":"number","default":1.5},
			"i":{"type":"integer","default":3},"i2":{"type":"integer","default":3.0},
			"b":{"type":"boolean","default":false},"e":{"type":"enum","enum":["a",1,true],"default":1.0},
			"token":{"type":"secret","label":{"en":"Token"}}}`)}},
		{"unknown keys in contributes entries", []edit{
			set("/contributes/settings", `{"s":{"type":"string","future":1}}`),
			set("/contributes/harnesses", `[{"id":"h","name":"H","future":{"x":1}}]`),
			set("/contributes/commands", `[{"anything":true}]`)}},
		{"texts as objects", []edit{set("/name", `{"fr":"Essai","en":"Test","pt-BR":"Teste"}`), set("/description", `"d"`)}},
		{"author", []edit{set("/author", `{"name":"Me","url":"https://example.com"}`)}},
		{"harness without acp needs no locate", []edit{set("/contributes/harnesses", `[{"id":"h","name":"H"}]`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := manifestWith(t, tt.edits...)
			if _, err := Parse(data, LoadOptions{AppVersion: "2.2.0"}); err != nil {
				t.Errorf("Parse(%s):\n%v", data, err)
			}
		})
	}
}

// refusal is a manifest that must be refused, with the pointers of its
// problems and a word its first message must hold.
type refusal struct {
	name     string
	edits    []edit
	pointers []string
	says     string
}

func TestParseRefusesTopLevel(t *testing.T) {
	runRefusals(t, []refusal{
		{"unknown top-level key", []edit{set("/permission", `{}`)}, []string{"/permission"}, `unknown key "permission"`},
		{"top-level key in another case", []edit{set("/ID", `"dev.x.y"`)}, []string{"/ID"}, "unknown key"},
		{"missing id", []edit{remove("/id")}, []string{"/id"}, `required "id" is missing`},
		{"missing name", []edit{remove("/name")}, []string{"/name"}, "missing"},
		{"missing version", []edit{remove("/version")}, []string{"/version"}, "missing"},
		{"missing escouade", []edit{remove("/escouade")}, []string{"/escouade"}, "missing"},
		{"id one part", []edit{set("/id", `"slack"`)}, []string{"/id"}, "reverse-DNS"},
		{"id uppercase", []edit{set("/id", `"dev.Escouade.slack"`)}, []string{"/id"}, "reverse-DNS"},
		{"id dash in first part", []edit{set("/id", `"my-dev.slack"`)}, []string{"/id"}, "reverse-DNS"},
		{"id empty part", []edit{set("/id", `"dev..slack"`)}, []string{"/id"}, "reverse-DNS"},
		{"id a number", []edit{set("/id", `12`)}, []string{"/id"}, "is a number, not a string"},
		{"version not semver", []edit{set("/version", `"1.0"`)}, []string{"/version"}, "semantic version"},
		{"version leading zero", []edit{set("/version", `"01.0.0"`)}, []string{"/version"}, "semantic version"},
		{"version with v", []edit{set("/version", `"v1.0.0"`)}, []string{"/version"}, "semantic version"},
		{"name empty", []edit{set("/name", `""`)}, []string{"/name"}, "is empty"},
		{"name a number", []edit{set("/name", `1`)}, []string{"/name"}, "is a number, not a string or an object"},
		{"name empty object", []edit{set("/name", `{}`)}, []string{"/name"}, "empty object"},
		{"name bad language", []edit{set("/name", `{"english":"x"}`)}, []string{"/name/english"}, "language code"},
		{"name language not a string", []edit{set("/name", `{"en":1}`)}, []string{"/name/en"}, "is a number"},
		{"author unknown key", []edit{set("/author", `{"name":"a","mail":"x"}`)}, []string{"/author/mail"}, "unknown key"},
		{"author without name", []edit{set("/author", `{"url":"x"}`)}, []string{"/author/name"}, "missing"},
		{"license empty", []edit{set("/license", `""`)}, []string{"/license"}, "is empty"},
		{"$schema not a string", []edit{set("/$schema", `1`)}, []string{"/$schema"}, "not a string"},
	})
}

func TestParseRefusesEscouade(t *testing.T) {
	runRefusals(t, []refusal{
		{"api 2", []edit{set("/escouade/api", `"2"`)}, []string{"/escouade/api"},
			"plugin API 2 is not supported: this Escouade speaks plugin API 1"},
		{"api as a number", []edit{set("/escouade/api", `1`)}, []string{"/escouade/api"}, "is a number, not a string"},
		{"api missing", []edit{set("/escouade", `{"min":"1.0.0"}`)}, []string{"/escouade/api"}, "missing"},
		{"min newer than the app", []edit{set("/escouade/min", `"2.3.0"`)}, []string{"/escouade/min"},
			"the plugin needs Escouade 2.3.0 or newer; this is Escouade 2.2.0"},
		{"min not semver", []edit{set("/escouade/min", `"2.3"`)}, []string{"/escouade/min"}, "semantic version"},
		{"unknown key", []edit{set("/escouade/max", `"3.0.0"`)}, []string{"/escouade/max"}, "unknown key"},
		{"not an object", []edit{set("/escouade", `"1"`)}, []string{"/escouade"}, "not an object"},
	})
}

func TestParseRefusesRun(t *testing.T) {
	runRefusals(t, []refusal{
		{"empty run", []edit{set("/run", `{}`)}, []string{"/run"}, "names no program"},
		{"two programs", []edit{set("/run", `{"command":["x"],"js":"a.mjs"}`)}, []string{"/run"},
			`names "command" and "js": a plugin has exactly one program`},
		{"empty command", []edit{set("/run", `{"command":[]}`)}, []string{"/run/command"}, "empty list"},
		{"empty command element", []edit{set("/run", `{"command":["./bin",""]}`)}, []string{"/run/command/1"}, "is empty"},
		{"command a string", []edit{set("/run", `{"command":"./bin"}`)}, []string{"/run/command"}, "not an array"},
		{"empty js", []edit{set("/run", `{"js":""}`)}, []string{"/run/js"}, "is empty"},
		{"empty wasm", []edit{set("/run", `{"wasm":""}`)}, []string{"/run/wasm"}, "is empty"},
		{"unknown program kind", []edit{set("/run", `{"python":"x.py"}`)}, []string{"/run/python"}, "unknown key"},
		{"activation unknown word", []edit{set("/activation", `["onStart"]`)}, []string{"/activation/0"}, "not an activation"},
		{"activation event without name", []edit{set("/activation", `["onCall","event:"]`)}, []string{"/activation/1"}, "not an activation"},
		{"activation not a list", []edit{set("/activation", `"onCall"`)}, []string{"/activation"}, "not an array"},
	})
}

func TestParseRefusesPermissions(t *testing.T) {
	runRefusals(t, []refusal{
		{"secret star alone", []edit{set("/permissions/secrets", `["webhook","*"]`)}, []string{"/permissions/secrets/1"},
			`"*" alone is refused`},
		{"secret star inside", []edit{set("/permissions/secrets", `["a*b"]`)}, []string{"/permissions/secrets/0"}, "before its end"},
		{"secret star first", []edit{set("/permissions/secrets", `["*a"]`)}, []string{"/permissions/secrets/0"}, "before its end"},
		{"secret two stars", []edit{set("/permissions/secrets", `["a**"]`)}, []string{"/permissions/secrets/0"}, "before its end"},
		{"secret empty", []edit{set("/permissions/secrets", `["ok",""]`)}, []string{"/permissions/secrets/1"}, "empty entry"},
		{"secret control character", []edit{set("/permissions/secrets", `["a\nb"]`)}, []string{"/permissions/secrets/0"}, "control character"},
		{"secret dot dot", []edit{set("/permissions/secrets", `["a/../b"]`)}, []string{"/permissions/secrets/0"}, `".."`},
		{"secret leading slash", []edit{set("/permissions/secrets", `["/etc"]`)}, []string{"/permissions/secrets/0"}, "starts with /"},
		{"secret not a string", []edit{set("/permissions/secrets", `[1]`)}, []string{"/permissions/secrets/0"}, "is a number"},
		{"files unknown root", []edit{set("/permissions/files", `["agent","home"]`)}, []string{"/permissions/files/1"}, `"home" is not a files root`},
		{"files bad suffix", []edit{set("/permissions/files", `["temp:rw"]`)}, []string{"/permissions/files/0"}, "not a files root"},
		{"network url", []edit{set("/permissions/network", `["https://slack.com"]`)}, []string{"/permissions/network/0"}, "not a host"},
		{"network wildcard", []edit{set("/permissions/network", `["*.slack.com"]`)}, []string{"/permissions/network/0"}, "not a host"},
		{"network empty", []edit{set("/permissions/network", `[""]`)}, []string{"/permissions/network/0"}, "not a host"},
		{"program path", []edit{set("/permissions/programs", `["/usr/bin/git"]`)}, []string{"/permissions/programs/0"}, "not a program name"},
		{"unknown permission", []edit{set("/permissions/secret", `["a"]`)}, []string{"/permissions/secret"}, "unknown key"},
	})
}

func TestParseRefusesLimits(t *testing.T) {
	runRefusals(t, []refusal{
		{"timeout past the limit", []edit{set("/limits/netTimeoutMs", `120001`)}, []string{"/limits/netTimeoutMs"},
			"is 120001, past the limit of 120000"},
		{"bytes past the limit", []edit{set("/limits/netMaxBytes", `67108865`)}, []string{"/limits/netMaxBytes"},
			"past the limit of 67108864"},
		{"timeout zero", []edit{set("/limits/netTimeoutMs", `0`)}, []string{"/limits/netTimeoutMs"}, "below the minimum"},
		{"timeout fraction", []edit{set("/limits/netTimeoutMs", `1.5`)}, []string{"/limits/netTimeoutMs"}, "not an integer"},
		{"timeout huge", []edit{set("/limits/netTimeoutMs", `1e400`)}, []string{"/limits/netTimeoutMs"}, "past the limit"},
		{"unknown limit", []edit{set("/limits/memory", `1`)}, []string{"/limits/memory"}, "unknown key"},
	})
}

func TestParseRefusesSettings(t *testing.T) {
	at := "/contributes/settings/k"
	runRefusals(t, []refusal{
		{"unknown type", []edit{set(at, `{"type":"date"}`)}, []string{at + "/type"}, "is not one of"},
		{"missing type", []edit{set(at, `{"default":"x"}`)}, []string{at + "/type"}, "missing"},
		{"enum without enum", []edit{set(at, `{"type":"enum"}`)}, []string{at + "/enum"}, "needs its choices"},
		{"enum empty", []edit{set(at, `{"type":"enum","enum":[]}`)}, []string{at + "/enum"}, "empty list"},
		{"enum repeated choice", []edit{set(at, `{"type":"enum","enum":["a","b","a"]}`)}, []string{at + "/enum/2"}, "repeats item 0"},
		{"enum object choice", []edit{set(at, `{"type":"enum","enum":[{}]}`)}, []string{at + "/enum/0"}, "is an object"},
		{"enum on a string", []edit{set(at, `{"type":"string","enum":["a"]}`)}, []string{at + "/enum"}, "only for settings of type enum"},
		{"enum default not a choice", []edit{set(at, `{"type":"enum","enum":["a","b"],"default":"c"}`)}, []string{at + "/default"},
			`"c" is not one of the choices`},
		{"string default a number", []edit{set(at, `{"type":"string","default":1}`)}, []string{at + "/default"}, "not a string"},
		{"number default a string", []edit{set(at, `{"type":"number","default":"1"}`)}, []string{at + "/default"}, "not a number"},
		{"integer default a fraction", []edit{set(at, `{"type":"integer","default":1.5}`)}, []string{at + "/default"}, "not an integer"},
		{"boolean default a string", []edit{set(at, `{"type":"boolean","default":"true"}`)}, []string{at + "/default"}, "not a boolean"},
		{"secret with a default", []edit{set(at, `{"type":"secret","default":"hunter2"}`)}, []string{at + "/default"}, "no default"},
		{"label not a text", []edit{set(at, `{"type":"string","label":["x"]}`)}, []string{at + "/label"}, "is an array"},
		{"bad key", []edit{set("/contributes/settings/a b", `{"type":"string"}`)}, []string{"/contributes/settings/a b"}, "not a setting key"},
		{"key with slash", []edit{set("/contributes/settings", `{"a/b":{"type":"string"}}`)}, []string{"/contributes/settings/a~1b"}, "not a setting key"},
		{"setting not an object", []edit{set(at, `"string"`)}, []string{at}, "not an object"},
	})
}

func TestParseRefusesHarnesses(t *testing.T) {
	h := "/contributes/harnesses/0"
	withHarness := func(entry string) []edit {
		return []edit{set("/contributes/harnesses", `[`+entry+`]`)}
	}
	withACP := func(acp string) []edit {
		return withHarness(`{"id":"h","name":"H","locate":{"names":["h"]},"acp":` + acp + `}`)
	}
	runRefusals(t, []refusal{
		{"missing id", withHarness(`{"name":"H"}`), []string{h + "/id"}, "missing"},
		{"missing name", withHarness(`{"id":"h"}`), []string{h + "/name"}, "missing"},
		{"bad id", withHarness(`{"id":"a:b","name":"H"}`), []string{h + "/id"}, "not a harness id"},
		{"repeated id", []edit{set("/contributes/harnesses", `[{"id":"h","name":"A"},{"id":"h","name":"B"}]`)},
			[]string{"/contributes/harnesses/1/id"}, `"h" is already the id of harness 0`},
		{"acp without locate", withHarness(`{"id":"h","name":"H","acp":{}}`), []string{h + "/locate"}, "needs locate"},
		{"locate without names", withHarness(`{"id":"h","name":"H","locate":{}}`), []string{h + "/locate/names"}, "missing"},
		{"locate empty names", withHarness(`{"id":"h","name":"H","locate":{"names":[]}}`), []string{h + "/locate/names"}, "empty list"},
		{"locate a path", withHarness(`{"id":"h","name":"H","locate":{"names":["./goose"]}}`), []string{h + "/locate/names/0"}, "not a program name"},
		{"versionArgs not strings", withHarness(`{"id":"h","name":"H","versionArgs":[1]}`), []string{h + "/versionArgs/0"}, "is a number"},
		{"tested not semver", withHarness(`{"id":"h","name":"H","tested":{"oldest":"1.57"}}`), []string{h + "/tested/oldest"}, "semantic version"},
		{"tested out of order", withHarness(`{"id":"h","name":"H","tested":{"oldest":"1.60.0","newest":"1.57.0"}}`),
			[]string{h + "/tested/oldest"}, "1.60.0 is newer than newest, 1.57.0"},
		{"mode a number", withHarness(`{"id":"h","name":"H","caps":{"modes":[1]}}`), []string{h + "/caps/modes/0"}, "is a number"},
		{"mode without id", withHarness(`{"id":"h","name":"H","caps":{"modes":[{"meaning":"m"}]}}`), []string{h + "/caps/modes/0/id"}, "missing"},
		{"mode empty", withHarness(`{"id":"h","name":"H","caps":{"modes":[""]}}`), []string{h + "/caps/modes/0"}, "is empty"},
		{"mode repeated", withHarness(`{"id":"h","name":"H","caps":{"modes":["default",{"id":"default"}]}}`),
			[]string{h + "/caps/modes/1"}, "already the id of mode 0"},
		{"mode meaning bad", withHarness(`{"id":"h","name":"H","caps":{"modes":[{"id":"a","meaning":{"en":""}}]}}`),
			[]string{h + "/caps/modes/0/meaning/en"}, "is empty"},
		{"model without label", withHarness(`{"id":"h","name":"H","models":[{"id":"m"}]}`), []string{h + "/models/0/label"}, "missing"},
		{"model repeated", withHarness(`{"id":"h","name":"H","models":[{"id":"m","label":"M"},{"id":"m","label":"N"}]}`),
			[]string{h + "/models/1/id"}, "already the id of model 0"},
		{"accountVar bad", withHarness(`{"id":"h","name":"H","accountVar":"GOOSE PATH"}`), []string{h + "/accountVar"}, "environment variable"},
		{"install not strings", withHarness(`{"id":"h","name":"H","install":{"unix":true}}`), []string{h + "/install/unix"}, "is a boolean"},
		{"acp not an object", withACP(`[]`), []string{h + "/acp"}, "not an object"},
		{"acp args a string", withACP(`{"args":"acp"}`), []string{h + "/acp/args"}, "not an array"},
		{"acp fs a string", withACP(`{"fs":"false"}`), []string{h + "/acp/fs"}, "not a boolean"},
		{"acp env bad name", withACP(`{"env":{"1X":"y"}}`), []string{h + "/acp/env/1X"}, "environment variable"},
		{"acp env value a number", withACP(`{"env":{"X":1}}`), []string{h + "/acp/env/X"}, "is a number"},
		{"acp removeEnv bad name", withACP(`{"removeEnv":["A-B"]}`), []string{h + "/acp/removeEnv/0"}, "environment variable"},
		{"acp modes value empty", withACP(`{"modes":{"default":""}}`), []string{h + "/acp/modes/default"}, "is empty"},
		{"acp readOnlyMode empty", withACP(`{"readOnlyMode":""}`), []string{h + "/acp/readOnlyMode"}, "is empty"},
		{"acp modelOption a number", withACP(`{"modelOption":1}`), []string{h + "/acp/modelOption"}, "is a number"},
		{"acp questionsInText a string", withACP(`{"questionsInText":"yes"}`), []string{h + "/acp/questionsInText"}, "not a boolean"},
		{"acp tools value a number", withACP(`{"tools":{"shell":1}}`), []string{h + "/acp/tools/shell"}, "is a number"},
		{"acp subagentTools empty name", withACP(`{"subagentTools":[""]}`), []string{h + "/acp/subagentTools/0"}, "is empty"},
		{"acp unknown extension", withACP(`{"extensions":["zed"]}`), []string{h + "/acp/extensions/0"}, `"zed" is not a known ACP extension`},
		{"harnesses not a list", []edit{set("/contributes/harnesses", `{}`)}, []string{"/contributes/harnesses"}, "not an array"},
	})
}

func runRefusals(t *testing.T, tests []refusal) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := manifestWith(t, tt.edits...)
			_, err := Parse(data, LoadOptions{AppVersion: "2.2.0"})
			problems := problemsOf(t, err)
			if diff := cmp.Diff(tt.pointers, pointersOf(problems)); diff != "" {
				t.Fatalf("pointers of %s (-want +got):\n%s\n%v", data, diff, err)
			}
			if !strings.Contains(problems[0].Message, tt.says) {
				t.Errorf("message %q does not say %q", problems[0].Message, tt.says)
			}
			if problems[0].Fix == "" {
				t.Errorf("problem %q has no fix", problems[0].Message)
			}
		})
	}
}

// A key a letter away from a known one is named in the fix.
func TestAnUnknownKeyNamesTheKeyItIsATypoOf(t *testing.T) {
	fix := unknownKeyFix("activaton", []string{"activation", "author", "run"})
	if !strings.HasPrefix(fix, `did you mean "activation"?`) {
		t.Errorf("fix %q does not suggest activation", fix)
	}
	if fix := unknownKeyFix("zzzzzz", []string{"activation", "author"}); strings.Contains(fix, "did you mean") {
		t.Errorf("fix %q suggests a key nothing like it", fix)
	}
}
