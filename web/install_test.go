package web

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/manifest"
)

// The install window says what the plugin runs in the words of the app.
func TestInstallWindowRuns(t *testing.T) {
	base := `{"id": "dev.example.kind", "name": "Kind", "version": "1.0.0", "escouade": {"api": "1"}, "activation": ["onCall"]`
	cases := []struct {
		run, lang, want, command string
		isolated                 bool
	}{
		{`"run": {"command": ["./p", "--flag"]}`, "en", "Runs a program on your computer, with your rights", "./p --flag", false},
		{`"run": {"js": "dist/plugin.mjs"}`, "en", "Runs inside Escouade, isolated", "", true},
		{`"run": {"wasm": "Cargo.toml"}`, "en", "Runs inside Escouade, isolated", "", true},
		{`"run": {"command": ["./p"]}`, "fr", "Lance un programme sur ton ordinateur, avec tes droits", "./p", false},
		{`"run": {"wasm": "Cargo.toml"}`, "fr", "Tourne dans Escouade, isolé", "", true},
	}
	for _, c := range cases {
		t.Run(c.lang+" "+c.run, func(t *testing.T) {
			m, err := manifest.Parse([]byte(base+", "+c.run+"}"), manifest.LoadOptions{AppVersion: host.AppVersion})
			if err != nil {
				t.Fatal(err)
			}
			s := &Server{lang: c.lang}
			text, command, isolated := s.runs(m)
			if diff := cmp.Diff([]any{c.want, c.command, c.isolated}, []any{text, command, isolated}); diff != "" {
				t.Errorf("runs (-want +got):\n%s", diff)
			}
		})
	}
}

// A harness plugin's window shows the command its agents will run, with
// the rights they run with.
func TestInstallWindowHarness(t *testing.T) {
	v := startView(t, "")
	dir, _ := filepath.Abs(filepath.Join("..", "tests", "fixtures", "plugins", "fake-acp"))
	code, body := get(t, v, "/install?dir="+dir, map[string]string{SecretHeader: v.srv.Secret()}, "")
	if code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	for _, want := range []string{"Runs no program: it only describes what it adds", "Its agents run a program on your computer, with your rights", "<code>fake-acp</code>"} {
		if !strings.Contains(body, want) {
			t.Errorf("the window lacks %q", want)
		}
	}
}
