package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// GitBare commits the folder dir and returns a bare repository of it, as
// a person publishes a plugin; the user's git configuration is left out.
// The test is skipped where git is not installed.
func GitBare(t *testing.T, dir string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	bare := filepath.Join(t.TempDir(), "plugin.git")
	for _, args := range [][]string{
		{"-C", dir, "init", "-q"}, {"-C", dir, "add", "-A"},
		{"-C", dir, "-c", "user.email=t@example.org", "-c", "user.name=t", "commit", "-qm", "plugin"},
		{"clone", "-q", "--bare", dir, bare},
	} {
		cmd := exec.Command("git", args...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return bare
}

// GitBareOfReusedTree returns a bare repository whose one commit holds
// manifest as escouade-plugin.json and folders folders of files one-byte
// files each, made with git's plumbing of one blob and one subtree reused:
// a few KB of repository that checks out as folders×files files.
func GitBareOfReusedTree(t *testing.T, manifest string, folders, files int) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	bare := filepath.Join(t.TempDir(), "reused.git")
	gitIn(t, "", "", "init", "-q", "--bare", bare)
	blob := gitIn(t, bare, "x", "hash-object", "-w", "--stdin")
	var sub, root strings.Builder
	for i := range files {
		fmt.Fprintf(&sub, "100644 blob %s\tf%05d\n", blob, i)
	}
	subtree := gitIn(t, bare, sub.String(), "mktree")
	fmt.Fprintf(&root, "100644 blob %s\tescouade-plugin.json\n", gitIn(t, bare, manifest, "hash-object", "-w", "--stdin"))
	for i := range folders {
		fmt.Fprintf(&root, "040000 tree %s\td%04d\n", subtree, i)
	}
	commit := gitIn(t, bare, "", "commit-tree", gitIn(t, bare, root.String(), "mktree"), "-m", "reused")
	gitIn(t, bare, "", "update-ref", "refs/heads/main", commit)
	gitIn(t, bare, "", "symbolic-ref", "HEAD", "refs/heads/main")
	return bare
}

// gitIn runs git in the repository dir with stdin and returns its output.
func gitIn(t *testing.T, dir, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.org")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return strings.TrimSpace(string(out))
}
