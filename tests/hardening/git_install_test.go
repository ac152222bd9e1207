//go:build linux

package hardening

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/internal/testutil"
)

// install URL through the built command, with a hostile user
// configuration around it (a template hook, a hooks path) and hooks in
// the repository itself: the plugin is installed from its checkout under
// the home, the same window is shown, and no hook runs.
func TestInstallFromAGitRepositoryRunsNoHook(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "hook-ran")
	hook := []byte("#!/bin/sh\ntouch " + marker + "\n")
	bare := testutil.GitBare(t, plugin{fixture: "puppet"}.write(t))
	for _, name := range []string{"post-checkout", "pre-upload", "reference-transaction"} {
		writeFile(t, filepath.Join(bare, "hooks", name), hook)
		os.Chmod(filepath.Join(bare, "hooks", name), 0o755)
	}
	evil := t.TempDir()
	for _, d := range []string{"template/hooks", "hooks"} {
		writeFile(t, filepath.Join(evil, d, "post-checkout"), hook)
		os.Chmod(filepath.Join(evil, d, "post-checkout"), 0o755)
	}
	writeFile(t, filepath.Join(evil, "gitconfig"), []byte("[init]\n\ttemplateDir = "+filepath.Join(evil, "template")+"\n[core]\n\thooksPath = "+filepath.Join(evil, "hooks")+"\n"))
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(evil, "gitconfig"))
	t.Setenv("GIT_TEMPLATE_DIR", filepath.Join(evil, "template"))
	home := t.TempDir()
	for _, source := range []string{bare, "file://" + bare} {
		out, errOut, code := cli(t, "install", source, "--home", home)
		if code != 0 || !strings.Contains(out, "Install puppet 1.0.0") || !strings.Contains(out, "Installed.") {
			t.Fatalf("install %s: exit %d\n%s\n%s", source, code, out, errOut)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a hook ran during install")
	}
	list, _, _ := cli(t, "list", "--home", home, "--json")
	if !strings.Contains(list, filepath.Join(home, "git")) || !strings.Contains(list, `"source": "file://`+bare) {
		t.Errorf("list does not show the checkout and its source:\n%s", list)
	}
}

// What git must never be given is refused before git runs, with the rule:
// ext:: (a command), a local address, a repository that is no plugin.
func TestInstallRefusesHostileGitSources(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ext-ran")
	noPlugin := t.TempDir()
	writeFile(t, filepath.Join(noPlugin, "README.md"), []byte("not a plugin"))
	cases := map[string]string{
		"ext::sh -c touch% " + marker:             "is never used",
		"http://127.0.0.1/plugin.git":             "127.0.0.1 is an address of this machine or of the local network",
		"https://127.0.0.1/plugin.git":            "127.0.0.1 is an address of this machine or of the local network",
		"file://" + testutil.GitBare(t, noPlugin): "escouade-plugin.json",
	}
	home := t.TempDir()
	for source, want := range cases {
		_, errOut, code := cli(t, "install", source, "--home", home)
		if code != 1 || !strings.Contains(errOut, want) {
			t.Errorf("install %s: exit %d, stderr %q; want 1 and %q", source, code, errOut, want)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("ext:: ran its command")
	}
	if entries, _ := os.ReadDir(filepath.Join(home, "git")); len(entries) != 0 {
		t.Errorf("a refused clone left %v", entries)
	}
}

// A repository of 100 folders of 1,000 one-byte files, one blob
// and one subtree reused, a few KB to fetch and 100,101 entries to write.
// install URL refuses it from its tree, with the bound and the repository
// named, and leaves no file under <home>/git.
func TestInstallRefusesATreeOfAHundredThousandFilesAndLeavesNothing(t *testing.T) {
	bare := testutil.GitBareOfReusedTree(t, `{"id":"dev.test.reused","name":"Reused","version":"1.0.0","escouade":{"api":"1"}}`, 100, 1000)
	home := t.TempDir()
	source := "file://" + bare
	out, errOut, code := cli(t, "install", source, "--home", home)
	want := source + ": not installed: its tree holds more than 20000 files and folders, the most a plugin's folder may hold"
	if code != 1 || !strings.Contains(errOut, want) || strings.Contains(out, "Installed.") {
		t.Fatalf("install %s: exit %d\nstdout %s\nstderr %s\nwant exit 1 and %q", source, code, out, errOut, want)
	}
	var left []string
	filepath.WalkDir(filepath.Join(home, "git"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			left = append(left, path)
		}
		return nil
	})
	if len(left) != 0 {
		t.Errorf("the refused install left %d files under %s/git, e.g. %s", len(left), home, left[0])
	}
	if entries, _ := os.ReadDir(filepath.Join(home, "git")); len(entries) != 0 {
		t.Errorf("the refused install left %v", entries)
	}
}
