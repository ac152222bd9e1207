package manifest

import (
	"strings"
	"testing"
)

// Every text of a manifest a person may be shown, and every member name,
// is refused when it holds a character that could forge or reorder what a
// window shows: the forged consent window of the issue first.
func TestParseRefusesUnsafeTexts(t *testing.T) {
	h := "/contributes/harnesses/0"
	harness := `{"id":"h","name":"H","locate":{"names":["h"]},"models":[{"id":"m","label":{"en":"M","fr":"M\u202e"}}],"caps":{"modes":[{"id":"ask","meaning":"a\u2066"}]},"acp":{"args":["acp","\u0007"],"env":{"A\u001b":"1"},"tools":{"t":"x\u200b"}}}`
	runRefusals(t, []refusal{
		{"forged window", []edit{set("/name", `"Nice\u001b[1A\u001b[2KInstall Nice 1.0 \nIt runs isolated"`)}, []string{"/name"}, "holds U+001B, a control character, at character 5"},
		{"name translated", []edit{set("/name", `{"en":"Nice","fr":"Joli\u202egnp.exe"}`)}, []string{"/name/fr"}, "holds U+202E, a bidirectional control"},
		{"line feed", []edit{set("/description", `"one\ntwo"`)}, []string{"/description"}, "U+000A"},
		{"carriage return", []edit{set("/description", `"one\rtwo"`)}, []string{"/description"}, "U+000D"},
		{"tab", []edit{set("/description", `"one\ttwo"`)}, []string{"/description"}, "U+0009"},
		{"NUL", []edit{set("/version", `"1.0.0\u0000"`)}, []string{"/version"}, "U+0000"},
		{"DEL", []edit{set("/author", `{"name":"a\u007f"}`)}, []string{"/author/name"}, "U+007F"},
		{"C1 CSI", []edit{set("/author", `{"name":"a","url":"https://x\u009b2J"}`)}, []string{"/author/url"}, "U+009B"},
		{"line separator", []edit{set("/license", `"MIT\u2028"`)}, []string{"/license"}, "U+2028, a line separator"},
		{"ALM", []edit{set("/description", `"\u061c"`)}, []string{"/description"}, "U+061C"},
		{"LRM", []edit{set("/description", `"a\u200eb"`)}, []string{"/description"}, "U+200E"},
		{"isolate", []edit{set("/description", `"a\u2068b"`)}, []string{"/description"}, "U+2068"},
		{"zero width space", []edit{set("/id", `"dev.example.te\u200bst"`)}, []string{"/id"}, "U+200B, an invisible format character"},
		{"tag characters", []edit{set("/name", `"Nice\udb40\udc41"`)}, []string{"/name"}, "U+E0041"},
		{"command", []edit{set("/run", `{"command":["./bin","\u001b[2J"]}`)}, []string{"/run/command/1"}, "U+001B"},
		{"js", []edit{set("/run", `{"js":"dist/a\u202e.mjs"}`)}, []string{"/run/js"}, "U+202E"},
		{"network", []edit{set("/permissions/network", `["a.com","b.com","c\u200b.com"]`)}, []string{"/permissions/network/2"}, "U+200B"},
		{"programs", []edit{set("/permissions/programs", `["git\r"]`)}, []string{"/permissions/programs/0"}, "U+000D"},
		{"secret bidi", []edit{set("/permissions/secrets", `["a\u202e"]`)}, []string{"/permissions/secrets/0"}, "U+202E"},
		{"setting label", []edit{set("/contributes/settings/k", `{"type":"string","label":{"en":"Token\u001b[8m"}}`)}, []string{"/contributes/settings/k/label/en"}, "U+001B"},
		{"setting description", []edit{set("/contributes/settings/k", `{"type":"string","description":"a\nb"}`)}, []string{"/contributes/settings/k/description"}, "U+000A"},
		{"enum choice", []edit{set("/contributes/settings/k", `{"type":"enum","enum":["a","b\u202e"]}`)}, []string{"/contributes/settings/k/enum/1"}, "U+202E"},
		{"setting key", []edit{set("/contributes/settings", `{"k\u001b":{"type":"string"}}`)}, []string{"/contributes/settings/k\u001b"}, `the member name "k\x1b" holds U+001B`},
		{"raw contribution", []edit{set("/contributes/commands", `[{"title":"Run\u2067"}]`)}, []string{"/contributes/commands/0/title"}, "U+2067"},
		{"harness texts", []edit{set("/contributes/harnesses", `[`+harness+`]`)},
			[]string{h + "/acp/args/1", h + "/acp/env/A\u001b", h + "/acp/tools/t", h + "/caps/modes/0/meaning", h + "/models/0/label/fr"}, "U+0007"},
	})
}

// Texts in any script, emoji joined by U+200D and words joined by U+200C
// stay accepted: only what can act on a terminal, break a line, reorder
// or hide text is refused.
func TestParseAcceptsTextsOfEveryScript(t *testing.T) {
	data := manifestWith(t,
		set("/name", `{"en":"Family 👨‍👩‍👧","fa":"نامه‌ها","he":"שלום עולם","ja":"日本語","ar":"مرحبا"}`),
		set("/description", `"A long description that the app wraps itself, with “quotes” — and a dash."`),
	)
	if _, err := Parse(data, LoadOptions{}); err != nil {
		t.Fatalf("refused: %v", err)
	}
}

// A problem naming a key that holds a bidirectional control prints it
// escaped, so that the refusal itself cannot be reordered.
func TestProblemEscapesItsPointer(t *testing.T) {
	_, err := Parse(manifestWith(t, set("/contributes/settings", `{"a\u202eb":{"type":"string"}}`)), LoadOptions{})
	if err == nil || strings.Contains(err.Error(), "\u202e") || !strings.Contains(err.Error(), `/contributes/settings/a\u202eb: `) {
		t.Fatalf("error %q", err)
	}
}
