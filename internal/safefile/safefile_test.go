package safefile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/internal/testutil"
)

func TestReadRegularFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "plugin.wasm")
	want := bytes.Repeat([]byte("x"), 1000)
	if err := os.WriteFile(path, want, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path, "plugin.wasm", 1000)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("Read at its limit: %d bytes, %v", len(got), err)
	}
	_, err = Read(path, "plugin.wasm", 999)
	assertRefusal(t, err, ErrTooLarge, "plugin.wasm is 1000 bytes; the limit is 999 bytes")
}

func TestReadRefusesADirectory(t *testing.T) {
	_, err := Read(t.TempDir(), "plugin.wasm", MiB)
	assertRefusal(t, err, ErrNotRegular, "plugin.wasm is a directory; the host reads only regular files")
}

func TestReadRefusesALinkToADevice(t *testing.T) {
	testutil.SkipUnderWine(t, testutil.WineLinks)
	link := filepath.Join(t.TempDir(), "plugin.wasm")
	if err := os.Symlink(deviceName(), link); err != nil {
		t.Skip("no links here:", err)
	}
	_, err := Read(link, "plugin.wasm", 64*MiB)
	assertRefusal(t, err, ErrNotRegular, "plugin.wasm is a device; the host reads only regular files")
}

// A sparse file is refused from its size alone: were it read, 1 GiB would
// be allocated and the test would take seconds, not a stat.
func TestReadRefusesASparseFileWithoutReadingIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plugin.wasm")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(GiB); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = Read(path, "plugin.wasm", 64*MiB)
	var e *Error
	if !errors.As(err, &e) || e.Grew || e.Size != GiB {
		t.Fatalf("Read: %#v, want the size from fstat", err)
	}
	assertRefusal(t, err, ErrTooLarge, "plugin.wasm is 1.0 GiB; the limit is 64 MiB")
}

// A file that grows after its size was checked is cut at the limit, not
// read to its new end.
func TestReadCutsAGrowingFileAtTheLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "version.json")
	if err := os.WriteFile(path, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path, "version.json", 100)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.WriteFile(path, bytes.Repeat([]byte(" "), 10*KiB), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = f.ReadAll()
	var e *Error
	if !errors.As(err, &e) || !e.Grew || e.Size != 101 {
		t.Fatalf("ReadAll: %#v, want it cut one byte past the limit", err)
	}
	assertRefusal(t, err, ErrTooLarge, "version.json grew while it was read, past the limit of 100 bytes")
}

// deviceName is the null device by its full name: Windows' os.DevNull,
// NUL, would be a link relative to the link's own folder.
func deviceName() string {
	if runtime.GOOS == "windows" {
		return `\\.\NUL`
	}
	return os.DevNull
}

// A missing file is named with the system's own words for it ("no such
// file or directory" on Unix, "The system cannot find the file
// specified." on Windows).
func TestReadMissingFile(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	_, err := Read(missing, "version.json", KiB)
	_, statErr := os.Stat(missing)
	want := "version.json cannot be read: " + errors.Unwrap(statErr).Error()
	if !errors.Is(err, fs.ErrNotExist) || err.Error() != want {
		t.Fatalf("Read: %v, want %q", err, want)
	}
}

func TestReadInStaysUnderItsRoot(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(outside, []byte("s3cret"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Skip("no links here:", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if got, err := ReadIn(root, "a.json", "a.json", KiB); err != nil || string(got) != "{}" {
		t.Errorf("ReadIn a.json: %q, %v", got, err)
	}
	if got, err := ReadIn(root, "out", "out", KiB); err == nil {
		t.Errorf("ReadIn of a link out of the root: %q", got)
	}
}

func TestSizes(t *testing.T) {
	for _, c := range []struct {
		size, limit int64
		want        string
	}{
		{GiB, 64 * MiB, "1.0 GiB; the limit is 64 MiB"},
		{64*MiB + 1, 64 * MiB, "67108865 bytes; the limit is 64 MiB"},
		{70 * MiB, 64 * MiB, "70.0 MiB; the limit is 64 MiB"},
		{300 * KiB, 256 * KiB, "300.0 KiB; the limit is 256 KiB"},
		{5000, 4000, "4.9 KiB; the limit is 4000 bytes"},
		{12, 10, "12 bytes; the limit is 10 bytes"},
	} {
		got := (&Error{Name: "f", Kind: ErrTooLarge, Size: c.size, Limit: c.limit}).Error()
		if got != "f is "+c.want {
			t.Errorf("%d past %d: %q, want %q", c.size, c.limit, got, "f is "+c.want)
		}
	}
}

func assertRefusal(t *testing.T, err error, kind error, sentence string) {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Fatalf("got %v, want a refusal of kind %v", err, kind)
	}
	if err.Error() != sentence {
		t.Errorf("sentence:\n got %q\nwant %q", err.Error(), sentence)
	}
}

// FuzzRead holds the rule for any content and any limit: the whole file
// within the limit, a refusal naming the limit past it.
func FuzzRead(f *testing.F) {
	f.Add([]byte("{}"), int64(2))
	f.Add([]byte("{}"), int64(1))
	f.Add([]byte{}, int64(0))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, content []byte, limit int64) {
		if limit < 0 || limit > MiB {
			return
		}
		path := filepath.Join(dir, "f")
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := Read(path, "f", limit)
		switch {
		case int64(len(content)) <= limit:
			if err != nil || !bytes.Equal(got, content) {
				t.Fatalf("within the limit: %d bytes, %v", len(got), err)
			}
		case !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "the limit is "+LimitText(limit)):
			t.Fatalf("past the limit: %v", err)
		}
	})
}
