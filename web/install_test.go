package web

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
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

// A manifest whose texts hold control or bidirectional characters is
// refused at load: the window names each field and character, escaped, and
// offers no install.
func TestInstallWindowRefusesUnsafeManifestTexts(t *testing.T) {
	v := startView(t, "")
	m := strings.Replace(fixtureManifest("1.0.0"), `{"en": "View fixture", "fr": "Banc de la vue"}`, `"Evil\u202egnp.exe"`, 1)
	m = strings.Replace(m, `"A plugin the Plugins view's tests install."`, `"line\u001b[2Jcleared"`, 1)
	dir := pluginFolder(t, m)
	_, body := get(t, v, "/install?dir="+dir, map[string]string{SecretHeader: v.srv.Secret()}, "")
	for _, want := range []string{`/name: &#34;Evil\u202egnp.exe&#34; holds U&#43;202E`, `/description: &#34;line\x1b[2Jcleared&#34; holds U&#43;001B`} {
		if !strings.Contains(body, want) {
			t.Errorf("the window does not name %q:\n%s", want, body)
		}
	}
	if strings.ContainsAny(body, "\u202e\x1b") {
		t.Error("the window holds a raw control or bidirectional character")
	}
	if strings.Contains(body, `name="fingerprint"`) {
		t.Error("the window offers to install a refused manifest")
	}
}

// A module the host would refuse to compile is not installed: the answer
// says why, as the CLI's install does.
func TestInstallRefusesWhatDoesNotCompile(t *testing.T) {
	var compiled []string
	v := startView(t, "", func(o *Options) {
		o.Precompile = func(_ context.Context, m *manifest.Manifest) error {
			compiled = append(compiled, m.ID)
			return errors.New(`import "env.f" is not WASI preview 1 nor the host's module`)
		}
	})
	// The fixture as a module: a process has nothing to compile.
	dir := pluginFolder(t, strings.Replace(fixtureManifest("1.0.0"), `"run": {"command": ["./plugin"]}`, `"run": {"wasm": "plugin.wasm"}`, 1))
	res := v.post("/install", url.Values{"dir": {dir}, "secrets": {"token"}}, map[string]string{SecretHeader: v.srv.Secret()})
	defer res.Body.Close()
	var a answer
	json.NewDecoder(res.Body).Decode(&a)
	want := filepath.Join(dir, manifest.FileName) + `: not installed: import "env.f" is not WASI preview 1 nor the host's module`
	if res.StatusCode != http.StatusUnprocessableEntity || a.Error != want {
		t.Errorf("answer %d %+v, want 422 %q", res.StatusCode, a, want)
	}
	if diff := cmp.Diff([]string{fixtureID}, compiled); diff != "" {
		t.Errorf("compiled (-want +got):\n%s", diff)
	}
	if _, ok := v.registry().Get(fixtureID); ok {
		t.Error("installed although it does not compile")
	}
}
