package manifest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseRefusesBadBytes(t *testing.T) {
	tests := []struct {
		name string
		data string
		want string // the message
	}{
		{"empty file", "", "the file is empty"},
		{"only blanks", " \n\t\r\n", "the file is empty"},
		{"byte order mark", "\uFEFF" + minimalManifest, "the file starts with a byte order mark"},
		{"invalid UTF-8", "{\n \"id\": \"a\xffb\"}", "the file is not valid UTF-8 (line 2, column 10)"},
		{"truncated", `{"id": "dev.x.y"`, "the file is not JSON: it ends before the value is complete"},
		{"syntax error", "{\n  \"id\": dev}", "the file is not JSON: invalid character 'd' looking for beginning of value (line 2, column 9)"},
		{"trailing comma", `{"id": "a",}`, "the file is not JSON: invalid character '}' looking for beginning of object key string (line 1, column 12)"},
		{"data after the object", minimalManifest + "\n{}", "the file has more data after the JSON value (line 2, column 1)"},
		{"two objects on a line", "{} {}", "the file has more data after the JSON value (line 1, column 4)"},
		{"an array", "[]", "the manifest is an array, not a JSON object"},
		{"a string", `"x"`, "the manifest is a string, not a JSON object"},
		{"a number", `12`, "the manifest is a number, not a JSON object"},
		{"a boolean", `true`, "the manifest is a boolean, not a JSON object"},
		{"null", `null`, "the manifest is null, not a JSON object"},
		{"deep nesting", strings.Repeat("[", 20000), "the file is not JSON: invalid character '[' exceeded max depth"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.data), LoadOptions{})
			problems := problemsOf(t, err)
			if len(problems) != 1 {
				t.Fatalf("got %d problems, want 1:\n%v", len(problems), err)
			}
			p := problems[0]
			if p.Pointer != "" || !strings.HasPrefix(p.Message, tt.want) || p.Fix == "" {
				t.Errorf("got %+v, want the whole document, message %q and a fix", p, tt.want)
			}
		})
	}
}

func TestParseRefusesTooLarge(t *testing.T) {
	_, err := Parse([]byte(minimalManifest), LoadOptions{MaxSize: 10})
	want := []Problem{{
		Message: "the file is 80 bytes; the limit is 10 bytes",
		Fix:     "keep the manifest to its declarations; put data in other files of the folder",
	}}
	if diff := cmp.Diff(want, problemsOf(t, err)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestParseRefusesIntegerTheGoFieldCannotHold(t *testing.T) {
	data := manifestWith(t, set("/limits/netTimeoutMs", `1e3`))
	_, err := Parse(data, LoadOptions{})
	if diff := cmp.Diff([]string{"/limits/netTimeoutMs"}, pointersOf(problemsOf(t, err))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestErrorLines(t *testing.T) {
	err := &Error{File: "plugins/x/escouade-plugin.json", Problems: []Problem{
		{Pointer: "/permissions/secrets/1", Message: `"*" alone is refused`, Fix: "name a key"},
		{Pointer: "", Message: "the file is empty", Fix: "write it"},
		{Pointer: "/id", Message: "no fix"},
	}}
	want := `plugins/x/escouade-plugin.json: /permissions/secrets/1: "*" alone is refused (fix: name a key)` + "\n" +
		`plugins/x/escouade-plugin.json: the file is empty (fix: write it)` + "\n" +
		`plugins/x/escouade-plugin.json: /id: no fix`
	if got := err.Error(); got != want {
		t.Errorf("Error() =\n%s\nwant\n%s", got, want)
	}
}

func TestProblemsAreSortedAndComplete(t *testing.T) {
	data := manifestWith(t,
		set("/version", `"x"`),
		set("/id", `"X"`),
		set("/permissions/secrets", `["*"]`),
		set("/contributes/harnesses", `[{"id":"a","name":"A"},{"id":"a","name":"B"},{"id":"a","name":"C"},{"id":"a","name":"D"},{"id":"a","name":"E"},{"id":"a","name":"F"},{"id":"a","name":"G"},{"id":"a","name":"H"},{"id":"a","name":"I"},{"id":"a","name":"J"},{"id":"a","name":"K"}]`),
	)
	_, err := Parse(data, LoadOptions{})
	want := []string{
		"/contributes/harnesses/1/id", "/contributes/harnesses/2/id", "/contributes/harnesses/3/id",
		"/contributes/harnesses/4/id", "/contributes/harnesses/5/id", "/contributes/harnesses/6/id",
		"/contributes/harnesses/7/id", "/contributes/harnesses/8/id", "/contributes/harnesses/9/id",
		"/contributes/harnesses/10/id", "/id", "/permissions/secrets/0", "/version",
	}
	if diff := cmp.Diff(want, pointersOf(problemsOf(t, err))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestProblemLineEscapesControlCharacters(t *testing.T) {
	p := Problem{Pointer: "/run/a\nb\x00", Message: `unknown key "a\nb\x00"`}
	if got, want := p.String(), `/run/a\nb\x00: unknown key "a\nb\x00"`; got != want {
		t.Errorf("String() = %s, want %s", got, want)
	}
}
