package manifest

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseRefusesProgramPaths(t *testing.T) {
	run := func(program string) []edit {
		return []edit{set("/run", `{"command":[`+jsonString(program)+`,"x"]}`), set("/activation", `["onCall"]`)}
	}
	runRefusals(t, []refusal{
		{"./ climbing out", run("./../bin/plugin"), []string{"/run/command/0"}, `"./../bin/plugin" climbs out of the plugin folder`},
		{"./ climbing out after going in", run("./bin/../../x"), []string{"/run/command/0"}, "climbs out"},
		{"./ climbing out with backslashes", run(`./bin\..\..\x`), []string{"/run/command/0"}, "climbs out"},
		{"./ alone", run("./"), []string{"/run/command/0"}, "names the plugin folder itself"},
		{"./. ", run("./."), []string{"/run/command/0"}, "names the plugin folder itself"},
		{"a path without ./", run("bin/plugin"), []string{"/run/command/0"}, "does not start with ./"},
		{"../ without ./", run("../plugin"), []string{"/run/command/0"}, "does not start with ./"},
	})
}

func TestParseAcceptsProgramPaths(t *testing.T) {
	for _, program := range []string{"./plugin", "./bin/plugin", "./bin/../plugin", "./a/./b", ".//plugin", "node", "python3", "/usr/bin/node", `C:\Tools\plugin.exe`} {
		data := manifestWith(t, set("/run", `{"command":[`+jsonString(program)+`]}`), set("/activation", `["onCall"]`))
		if _, err := Parse(data, LoadOptions{AppVersion: "2.2.0"}); err != nil {
			t.Errorf("%s refused:\n%v", program, err)
		}
	}
}

func TestParseRefusesLongID(t *testing.T) {
	long := "dev." + strings.Repeat("a", MaxIDBytes-3)
	runRefusals(t, []refusal{
		{"id over 200 bytes", []edit{set("/id", jsonString(long))}, []string{"/id"}, "is 201 bytes long, over 200"},
	})
	ok := "dev." + strings.Repeat("a", MaxIDBytes-4)
	if _, err := Parse(manifestWith(t, set("/id", jsonString(ok))), LoadOptions{AppVersion: "2.2.0"}); err != nil {
		t.Errorf("an id of %d bytes refused:\n%v", len(ok), err)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
