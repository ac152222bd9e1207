package embed_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/escouade-dev/escouade-plugin/internal/testutil"
)

// What the app of the Example is given, made by TestMain: in a real app,
// the home is registry.DefaultHome() and the folders are the ones the
// person picked.
var (
	// home is the app's home: its registry of installs, consents,
	// journals and agents.
	home string
	// notesFolder is a copy of examples/python-notes, a Python 3 process
	// plugin: copied so that what is recorded at install is the copy.
	notesFolder string
	// agentFolder is a copy of tests/fixtures/plugins/fake-acp, a plugin
	// that describes an ACP harness and runs no program of its own.
	agentFolder string
	// strayFolder is a plugin's folder the app never installs.
	strayFolder string
	// projectFolder is the folder the agent works in.
	projectFolder string
)

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

// runTests gives the Example its folders, and the app's environment the
// fake agent: its program first in PATH, its script in FAKE_ACP_SCRIPT.
func runTests(m *testing.M) int {
	root, err := os.MkdirTemp("", "embed-example")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(root)
	if err := setUp(root); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

func setUp(root string) error {
	if _, err := exec.LookPath("python3"); err != nil {
		return fmt.Errorf("the Example installs examples/python-notes, which runs python3: %w", err)
	}
	bin := filepath.Join(root, "bin")
	if err := testutil.GoBuild("../../tests/fixtures/plugins/fake-acp", filepath.Join(bin, "fake-acp")); err != nil {
		return fmt.Errorf("building the fake agent: %w", err)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "card.json"))
	if err != nil {
		return err
	}
	if err := os.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH")); err != nil {
		return err
	}
	if err := os.Setenv("FAKE_ACP_SCRIPT", script); err != nil {
		return err
	}
	home = filepath.Join(root, "home")
	notesFolder = filepath.Join(root, "python-notes")
	agentFolder = filepath.Join(root, "fake-acp")
	projectFolder = filepath.Join(root, "project")
	if strayFolder, err = filepath.Abs("../hello-js"); err != nil {
		return err
	}
	if err := os.CopyFS(notesFolder, os.DirFS("../python-notes")); err != nil {
		return err
	}
	if err := os.CopyFS(agentFolder, os.DirFS("../../tests/fixtures/plugins/fake-acp")); err != nil {
		return err
	}
	return os.MkdirAll(projectFolder, 0o755)
}
