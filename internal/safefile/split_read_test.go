package safefile

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// bigFile writes n random bytes (past splitReadMin, so ReadAll reads it
// in two halves) and opens it with the limit.
func bigFile(t *testing.T, n int, limit int64) (*File, string, []byte) {
	t.Helper()
	data := make([]byte, n)
	r := rand.NewChaCha8([32]byte{1})
	_, _ = r.Read(data)
	path := filepath.Join(t.TempDir(), "plugin.wasm")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path, "plugin.wasm", limit)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f, path, data
}

func TestReadAllOfALargeFileInHalves(t *testing.T) {
	for _, n := range []int{splitReadMin, splitReadMin + 1, 3*splitReadMin + 4097} {
		f, _, data := bigFile(t, n, 64*MiB)
		before := splitReads.Load()
		got, err := f.ReadAll()
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%d bytes: ReadAll = %d bytes, %v; want the file as written", n, len(got), err)
		}
		if splitReads.Load() != before+1 {
			t.Errorf("%d bytes: not read in halves", n)
		}
	}
	small := filepath.Join(t.TempDir(), "manifest")
	if err := os.WriteFile(small, make([]byte, splitReadMin-1), 0o644); err != nil {
		t.Fatal(err)
	}
	before := splitReads.Load()
	if _, err := Read(small, "manifest", 64*MiB); err != nil {
		t.Fatal(err)
	}
	if splitReads.Load() != before {
		t.Error("a file under splitReadMin was read in halves")
	}
}

// A large file that grows after its size was checked is still cut at the
// limit: the halves hold the size fstat gave, the end is found as before.
func TestReadAllOfALargeFileThatGrewPastTheLimit(t *testing.T) {
	const limit = 2 * MiB
	f, path, data := bigFile(t, 2*MiB, limit)
	if err := os.WriteFile(path, append(data, make([]byte, 10*KiB)...), 0o644); err != nil {
		t.Fatal(err)
	}
	before := splitReads.Load()
	_, err := f.ReadAll()
	if splitReads.Load() != before+1 {
		t.Error("not read in halves, then to its end")
	}
	var e *Error
	if !errors.As(err, &e) || !e.Grew || e.Size != limit+1 {
		t.Fatalf("ReadAll: %#v, want it cut one byte past the limit", err)
	}
}

// A large file that grows within the limit is read to its new end.
func TestReadAllOfALargeFileThatGrewWithinTheLimit(t *testing.T) {
	f, path, data := bigFile(t, 2*MiB, 64*MiB)
	grown := append(bytes.Clone(data), "tail"...)
	if err := os.WriteFile(path, grown, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := f.ReadAll()
	if err != nil || !bytes.Equal(got, grown) {
		t.Fatalf("ReadAll = %d bytes, %v; want the %d bytes of the grown file", len(got), err, len(grown))
	}
}

// A large file that shrank after its size was checked is read whole again
// from its start, one read after the other: what is there now, no hole.
func TestReadAllOfALargeFileThatShrank(t *testing.T) {
	f, path, data := bigFile(t, 2*MiB, 64*MiB)
	if err := os.Truncate(path, MiB+10); err != nil {
		t.Fatal(err)
	}
	before := splitReads.Load()
	got, err := f.ReadAll()
	if splitReads.Load() != before {
		t.Error("a shrunk file counted as read in halves")
	}
	if err != nil || !bytes.Equal(got, data[:MiB+10]) {
		t.Fatalf("ReadAll = %d bytes, %v; want the %d bytes left", len(got), err, MiB+10)
	}
}

// Large files read at once from several goroutines are each read whole:
// for the race detector too.
func TestReadAllOfLargeFilesAtOnce(t *testing.T) {
	const readers = 4
	files := make([]*File, readers)
	want := make([][]byte, readers)
	for i := range readers {
		files[i], _, want[i] = bigFile(t, 2*MiB+i, 64*MiB)
	}
	errs := make(chan error, readers)
	for i := range readers {
		go func() {
			got, err := files[i].ReadAll()
			if err == nil && !bytes.Equal(got, want[i]) {
				err = errors.New("read other bytes than written")
			}
			errs <- err
		}()
	}
	for range readers {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
