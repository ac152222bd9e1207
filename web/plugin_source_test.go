package web

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/registry"
)

// The git source a plugin's page shows is the registry's text, escaped:
// markup stays text, a bidirectional character is written \u202e, and a
// folder that is not a checkout of the home names no commit.
func TestPluginPageEscapesItsGitSource(t *testing.T) {
	home := t.TempDir()
	installed(t, home, pluginFolder(t, fixtureManifest("1.0.0")))
	reg, err := registry.Open(home)
	if err != nil {
		t.Fatal(err)
	}
	en, _ := reg.Get(fixtureID)
	en.Source = "file:///srv/<img src=x onerror=alert(1)>\u202eplugin.git"
	reg.Put(en)
	if err := reg.Save(); err != nil {
		t.Fatal(err)
	}
	v := startView(t, home)
	_, body := get(t, v, "/plugins/"+fixtureID, map[string]string{SecretHeader: v.srv.Secret()}, "")
	want := `Installed from file:///srv/&lt;img src=x onerror=alert(1)&gt;\u202eplugin.git</p>`
	if !strings.Contains(body, want) {
		t.Errorf("the page does not show the source escaped, want %q in:\n%s", want, body)
	}
	if strings.Contains(body, "<img") || strings.Contains(body, "\u202e") {
		t.Error("the page holds the source's markup or bidirectional character raw")
	}
}

// checkoutCommit reads the commit only from a checkout of the home's git
// folder.
func TestCheckoutCommit(t *testing.T) {
	home := t.TempDir()
	s := &Server{home: home}
	git := filepath.Join(home, registry.GitDir)
	for dir, want := range map[string]string{
		filepath.Join(git, "plugin-1a2b", "0123456789ab"):               "0123456789ab",
		filepath.Join(git, "plugin-1a2b", "0123456789ab") + "/":         "0123456789ab",
		filepath.Join(git, "plugin-1a2b", "not-a-commit"):               "",
		filepath.Join(home, "src", "plugin", "0123456789ab"):            "",
		filepath.Join(git, "0123456789ab"):                              "",
		filepath.Join(git, "plugin-1a2b", "0123456789ab", "..", "dead"): "dead",
	} {
		if got := s.checkoutCommit(dir); got != want {
			t.Errorf("checkoutCommit(%s) = %q, want %q", dir, got, want)
		}
	}
}
