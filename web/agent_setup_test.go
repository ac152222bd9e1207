package web

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A harness plugin's page shows how to install its agent on this system
// (install.windows on Windows, install.unix elsewhere) and its
// updateCommand, for the user to run.
func TestPluginPageShowsTheAgentsInstallAndUpdateCommands(t *testing.T) {
	home := t.TempDir()
	installed(t, home, filepath.Join("..", "plugins", "goose"))
	v := startView(t, home)
	_, body := get(t, v, "/plugins/dev.escouade.goose?tab=permissions", map[string]string{SecretHeader: v.srv.Secret()}, "")
	install, other := "download_cli.sh", "download_cli.ps1"
	if runtime.GOOS == "windows" {
		install, other = other, install
	}
	if !strings.Contains(body, "Update its agent with:") || !strings.Contains(body, "goose update") || !strings.Contains(body, install) || strings.Contains(body, other) {
		t.Errorf("the page does not show this system's install command (%s) and the update command:\n%s", install, body)
	}
}
