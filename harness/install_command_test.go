package harness

import (
	"errors"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/manifest"
)

// The install command shown is the one of the system the host runs on:
// install.windows on Windows, install.unix on every other system; the
// update advice is updateCommand, else the install command again.
func TestInstallAndUpdateCommandsPerSystem(t *testing.T) {
	h := &manifest.Harness{Name: manifest.PlainText("Goose"), Locate: manifest.Locate{Names: []string{"goose"}},
		Install:       manifest.Install{Windows: "irm goose.ps1 | iex", Unix: "curl -fsSL goose.sh | bash"},
		UpdateCommand: "goose update"}
	for goos, want := range map[string]string{"windows": "irm goose.ps1 | iex", "linux": "curl -fsSL goose.sh | bash", "darwin": "curl -fsSL goose.sh | bash", "freebsd": "curl -fsSL goose.sh | bash"} {
		diff(t, goos, want, InstallCommand(h, goos))
		_, err := locateOn(h, []string{"PATH=" + t.TempDir()}, goos)
		if !errors.Is(err, ErrNotInstalled) || !strings.HasSuffix(err.Error(), "(install it with: "+want+")") {
			t.Errorf("%s: %v", goos, err)
		}
	}
	advice, err := UpdateAdvice(h, "linux")
	diff(t, "update advice", "To update Goose, run: goose update", advice)
	diff(t, "no error", nil, err)

	h.UpdateCommand = ""
	advice, _ = UpdateAdvice(h, "windows")
	diff(t, "without updateCommand", "Goose gives no updateCommand: to update it, install it again with: irm goose.ps1 | iex", advice)
	h.Install = manifest.Install{Unix: "curl -fsSL goose.sh | bash"}
	if _, err := UpdateAdvice(h, "windows"); err == nil {
		t.Error("no command for Windows, yet some advice")
	}
	_, err = locateOn(h, []string{"PATH=" + t.TempDir()}, "windows")
	if strings.Contains(err.Error(), "install it with") {
		t.Errorf("on Windows, the Unix command is quoted: %v", err)
	}
}
