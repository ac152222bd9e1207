package main

import (
	"regexp"
	"strings"
	"testing"
)

// help lists each flag as it is typed, with two dashes, and its default.
func TestHelpListsFlagsWithTwoDashes(t *testing.T) {
	for _, cmd := range []string{"run", "test", "build", "install", "serve", "journal"} {
		code, out, _ := runCLI(t, "", "help", cmd)
		if code != exitOK {
			t.Fatalf("help %s: exit %d", cmd, code)
		}
		if single := regexp.MustCompile(`(?m)^  -[a-z]`).FindString(out); single != "" {
			t.Errorf("help %s lists a flag with one dash:\n%s", cmd, out)
		}
	}
	_, out, _ := runCLI(t, "", "help", "run")
	for _, want := range []string{"  --home string\n", "  --follow\n", `--app-version string`} {
		if !strings.Contains(out, want) {
			t.Errorf("help run lacks %q:\n%s", want, out)
		}
	}
}

// test of a folder with no manifest is one line and exit 1, as run's.
func TestTestOfAFolderWithoutAManifestIsOneLine(t *testing.T) {
	for _, dir := range []string{"nowhere-at-all", t.TempDir()} {
		code, out, errOut := runCLI(t, "", "test", dir, "--home", t.TempDir())
		if code != exitFail || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "escouade-plugin.json") {
			t.Errorf("test %s: exit %d, stdout %q, stderr %q; want exit 1 and one line naming escouade-plugin.json", dir, code, out, errOut)
		}
	}
}
