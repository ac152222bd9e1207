package harness

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/escouade-dev/escouade-plugin/acp"
)

// TestReviewFenceDanglingSymlink: a symlink of the agent's folder that
// points to a file not yet made in a fenced project. It exists (the
// longest existing prefix is the link itself), so it must be resolved and
// refused; writing through it plants the file in the private project.
func TestRegressFenceDanglingSymlink(t *testing.T) {
	skipWithoutLinks(t)
	w := newWorld(t)
	target := filepath.Join(w.fence, "planted.txt")
	link := filepath.Join(w.dir, "dangle")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	fence, err := NewFence(w.dir, []string{w.fence})
	if err != nil {
		t.Fatal(err)
	}
	card := acp.Item{Kind: "edit", Locations: []string{link}, Options: []acp.PermissionOption{{ID: "y", Kind: KindAllowOnce}}}
	if kind, ok := AutoAnswer(ModeAcceptEdits, card, fence); ok {
		t.Errorf("acceptEdits let a write through a link out of the agent's folder pass (%s)", kind)
	}
	err = WriteText(fence, link, "planted")
	if !errors.Is(err, ErrFenced) {
		t.Errorf("write through a dangling link into the fence: %v, want ErrFenced", err)
	}
	if _, err := os.Stat(target); err == nil {
		t.Errorf("a file was planted in the fenced project")
	}
}
