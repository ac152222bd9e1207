package harness

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/escouade-dev/escouade-plugin/internal/testutil"
)

// swapWorld is an agent folder with sub/file.txt, and a fenced folder with
// sub/file.txt of its own, so that a swap of sub for a link lands on a file
// of the same name.
func swapWorld(t *testing.T) (w world, fence *Fence, path string) {
	t.Helper()
	w = newWorld(t)
	writeFile(t, filepath.Join(w.dir, "sub", "file.txt"), "open")
	writeFile(t, filepath.Join(w.fence, "sub", "file.txt"), "fenced secret")
	fence, err := NewFence(w.dir, []string{w.fence})
	if err != nil {
		t.Fatal(err)
	}
	return w, fence, filepath.Join(w.dir, "sub", "file.txt")
}

// swapOnce makes the fence's next open meet sub swapped for a link into
// the fenced folder, after Check resolved the path.
func swapOnce(t *testing.T, w world, fence *Fence) {
	done := false
	fence.beforeOpen = func() {
		if done {
			return
		}
		done = true
		sub := filepath.Join(w.dir, "sub")
		if err := os.Rename(sub, filepath.Join(w.dir, "sub-away")); err != nil {
			t.Error(err)
		}
		if err := os.Symlink(filepath.Join(w.fence, "sub"), sub); err != nil {
			t.Error(err)
		}
	}
}

// TestFenceOpenFolderSwappedForLink: a folder swapped for a link between
// the check and the open was followed, and the fenced file read.
func TestFenceOpenFolderSwappedForLink(t *testing.T) {
	skipWithoutLinks(t)
	w, fence, path := swapWorld(t)
	swapOnce(t, w, fence)
	got, err := ReadText(fence, path, nil, nil)
	if !errors.Is(err, ErrFenced) {
		t.Errorf("read through a folder swapped for a link = %v, %v; want ErrFenced", got, err)
	}
}

func TestFenceOpenFolderSwappedForLinkOnWrite(t *testing.T) {
	skipWithoutLinks(t)
	w, fence, path := swapWorld(t)
	swapOnce(t, w, fence)
	err := WriteText(fence, path, "overwritten")
	if !errors.Is(err, ErrFenced) {
		t.Errorf("write through a folder swapped for a link = %v, want ErrFenced", err)
	}
	if b, _ := os.ReadFile(filepath.Join(w.fence, "sub", "file.txt")); string(b) != "fenced secret" {
		t.Errorf("the fenced file now holds %q", b)
	}
}

// TestFenceOpenSwapToOpenFolder: a swap towards a folder that is not fenced
// is followed once the path is resolved again.
func TestFenceOpenSwapToOpenFolder(t *testing.T) {
	skipWithoutLinks(t)
	w, fence, path := swapWorld(t)
	writeFile(t, filepath.Join(w.out, "sub", "file.txt"), "elsewhere")
	fence.beforeOpen = func() {
		fence.beforeOpen = nil
		sub := filepath.Join(w.dir, "sub")
		os.Rename(sub, filepath.Join(w.dir, "sub-away"))
		os.Symlink(filepath.Join(w.out, "sub"), sub)
	}
	got, err := ReadText(fence, path, nil, nil)
	if err != nil || got.(readResult).Content != "elsewhere" {
		t.Errorf("read after a harmless swap = %v, %v; want elsewhere", got, err)
	}
}

// TestFenceHardLink: a hard link outside the fence to a fenced file was
// read and written as any file.
func TestFenceHardLink(t *testing.T) {
	w := newWorld(t)
	secret := filepath.Join(w.fence, "secret.txt")
	writeFile(t, secret, "fenced secret")
	link := filepath.Join(w.dir, "hard.txt")
	if err := os.Link(secret, link); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	fence, err := NewFence(w.dir, []string{w.fence})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ReadText(fence, link, nil, nil); !errors.Is(err, ErrFenced) {
		t.Errorf("read of a hard link to a fenced file = %v, %v; want ErrFenced", got, err)
	}
	if err := WriteText(fence, link, "x"); !errors.Is(err, ErrFenced) {
		t.Errorf("write of a hard link to a fenced file = %v, want ErrFenced", err)
	}
	if b, _ := os.ReadFile(secret); string(b) != "fenced secret" {
		t.Errorf("the fenced file now holds %q", b)
	}
	for _, d := range diffsFromInput([]byte(`{"path":"`+filepath.ToSlash(link)+`","content":"new"}`), fence, 1<<20) {
		if d.OldText != nil {
			t.Errorf("a card's diff shows the fenced file: %q", *d.OldText)
		}
	}
}

// TestFenceHardLinkMadeLater: the index of fenced files with several names
// is built again for a file linked after it was built.
func TestFenceHardLinkMadeLater(t *testing.T) {
	w := newWorld(t)
	writeFile(t, filepath.Join(w.out, "shared.txt"), "shared")
	if err := os.Link(filepath.Join(w.out, "shared.txt"), filepath.Join(w.dir, "shared.txt")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	fence, err := NewFence(w.dir, []string{w.fence})
	if err != nil {
		t.Fatal(err)
	}
	// A file with two names, none fenced: it reads, and builds the index.
	if got, err := ReadText(fence, filepath.Join(w.dir, "shared.txt"), nil, nil); err != nil || got.(readResult).Content != "shared" {
		t.Fatalf("read of a shared file = %v, %v", got, err)
	}
	secret := filepath.Join(w.fence, "later.txt")
	writeFile(t, secret, "fenced secret")
	link := filepath.Join(w.dir, "later.txt")
	if err := os.Link(secret, link); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadText(fence, link, nil, nil); !errors.Is(err, ErrFenced) {
		t.Errorf("read of a hard link made after the index = %v, %v; want ErrFenced", got, err)
	}
}

// TestFenceOwnProjectHardLinks: hard links inside the agent's own private
// project (a pnpm store) read as usual.
func TestFenceOwnProjectHardLinks(t *testing.T) {
	w := newWorld(t)
	inner := filepath.Join(w.fence, "agent")
	writeFile(t, filepath.Join(inner, "store", "a.js"), "module")
	if err := os.Link(filepath.Join(inner, "store", "a.js"), filepath.Join(inner, "a.js")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	fence, err := NewFence(inner, []string{w.fence})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ReadText(fence, filepath.Join(inner, "a.js"), nil, nil); err != nil || got.(readResult).Content != "module" {
		t.Errorf("read in the agent's own private project = %v, %v", got, err)
	}
}

func skipWithoutLinks(t *testing.T) {
	t.Helper()
	testutil.SkipUnderWine(t, testutil.WineLinks)
	dir := t.TempDir()
	if err := os.Symlink(dir, filepath.Join(dir, "l")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
}

// TestFSRefusesWhatIsNotAFile: a FIFO hung the session (reading waits for
// a writer, opening for writing waits for a reader) and a device was read
// for ever.
func TestFSRefusesWhatIsNotAFile(t *testing.T) {
	w := newWorld(t)
	fence, err := NewFence(w.dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(w.dir, "fifo")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	if _, err := ReadText(fence, fifo, nil, nil); !errors.Is(err, errNotRegular) {
		t.Errorf("read of a FIFO = %v, want not a regular file", err)
	}
	if err := WriteText(fence, fifo, "x"); err == nil {
		t.Error("write to a FIFO without a reader succeeded")
	}
	if _, err := ReadText(fence, w.dir, nil, nil); !errors.Is(err, errNotRegular) {
		t.Errorf("read of a folder = %v, want not a regular file", err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := ReadText(fence, "/dev/zero", nil, nil); !errors.Is(err, errNotRegular) {
			t.Errorf("read of /dev/zero = %v, want not a regular file", err)
		}
	}
}

// TestDiffNeverReadsAFIFO: a card's diff read the file its input names; a
// FIFO held open by the agent blocked the session for ever.
func TestDiffNeverReadsAFIFO(t *testing.T) {
	w := newWorld(t)
	fence, err := NewFence(w.dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(w.dir, "fifo")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	writer, err := os.OpenFile(fifo, os.O_RDWR, 0) // held open, writes nothing
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	if d := diffsFromInput([]byte(`{"path":"`+filepath.ToSlash(fifo)+`","content":"x"}`), fence, 1<<20); d != nil {
		t.Errorf("a diff against a FIFO: %+v", d)
	}
}
