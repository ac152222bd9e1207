package keychain

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func newTestFile(t *testing.T) (*File, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "home", FileName)
	f, err := NewFile(path)
	if err != nil {
		t.Fatalf("NewFile: %v", err)
	}
	return f, path
}

func TestFileKeepsSecretsAcrossInstances(t *testing.T) {
	f, path := newTestFile(t)
	if err := f.Set(Service, "plugin:dev.x:token", "tok-123"); err != nil {
		t.Fatal(err)
	}
	again, err := NewFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := again.Get(Service, "plugin:dev.x:token")
	if err != nil || got != "tok-123" {
		t.Errorf("Get = %q, %v; want %q, nil", got, err, "tok-123")
	}
}

func TestFileHidesSecretsOnDisk(t *testing.T) {
	f, path := newTestFile(t)
	if err := f.Set(Service, "plugin:dev.x:token", "tok-123"); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, clear := range []string{"tok-123", "plugin:dev.x", Service + `"`} {
		if bytes.Contains(data, []byte(clear)) {
			t.Errorf("%s holds %q in clear", FileName, clear)
		}
	}
}

func TestFileModes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no Unix permission bits")
	}
	f, path := newTestFile(t)
	if err := f.Set(Service, "n", "v"); err != nil {
		t.Fatal(err)
	}
	if err := f.Set(Service, "n", "rewritten"); err != nil {
		t.Fatal(err)
	}
	want := map[string]os.FileMode{
		filepath.Dir(path): os.ModeDir | secretDirMode,
		path:               secretFileMode,
		path + ".key":      secretFileMode,
	}
	got := map[string]os.FileMode{}
	for p := range want {
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		got[p] = info.Mode()
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("modes (-want +got):\n%s", diff)
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

func TestFileCorruption(t *testing.T) {
	otherKey := bytes.Repeat([]byte{7}, keySize)
	tests := []struct {
		name   string
		damage func(t *testing.T, path string)
	}{
		{"empty file", writeTo(FileName, nil)},
		{"not a secrets file", writeTo(FileName, []byte("password=hunter2\n"))},
		{"cut short", func(t *testing.T, path string) { truncateBy(t, path, 20) }},
		{"magic only", writeTo(FileName, []byte(fileMagic))},
		{"a flipped bit", func(t *testing.T, path string) { flipLastByte(t, path) }},
		{"key missing", func(t *testing.T, path string) { remove(t, path+".key") }},
		{"key of the wrong size", writeTo(FileName+".key", []byte("short"))},
		{"another key", writeTo(FileName+".key", otherKey)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, path := newTestFile(t)
			if err := f.Set(Service, "n", "v"); err != nil {
				t.Fatal(err)
			}
			tt.damage(t, path)
			_, err := NewFile(path)
			checkCorrupt(t, "NewFile", err, path)
			_, err = f.Get(Service, "n")
			checkCorrupt(t, "Get", err, path)
			checkCorrupt(t, "Set", f.Set(Service, "n", "v2"), path)
			checkCorrupt(t, "Delete", f.Delete(Service, "n"), path)
		})
	}
}

func checkCorrupt(t *testing.T, call string, err error, path string) {
	t.Helper()
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("%s error = %v, want one wrapping ErrCorrupt", call, err)
	}
	if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, "move it away") {
		t.Errorf("%s error %q should name the file and what to do", call, msg)
	}
}

// writeTo returns a damage that replaces the file named name beside the
// secrets file.
func writeTo(name string, data []byte) func(t *testing.T, path string) {
	return func(t *testing.T, path string) {
		if err := os.WriteFile(filepath.Join(filepath.Dir(path), name), data, secretFileMode); err != nil {
			t.Fatal(err)
		}
	}
}

func truncateBy(t *testing.T, path string, n int64) {
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, info.Size()-n); err != nil {
		t.Fatal(err)
	}
}

func flipLastByte(t *testing.T, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-1] ^= 1
	writeTo(filepath.Base(path), data)(t, path)
}

func remove(t *testing.T, path string) {
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
}

func TestSealRoundTrip(t *testing.T) {
	key := bytes.Repeat([]byte{1}, keySize)
	want := store{Service: {"plugin:dev.x:a": "1", "plugin:dev.x:b": "é"}, "other": {}}
	data, err := seal(key, want)
	if err != nil {
		t.Fatal(err)
	}
	got, err := unseal(key, data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("unseal(seal(s)) (-want +got):\n%s", diff)
	}
}

// FuzzUnseal feeds the file decoder arbitrary files: it must refuse them
// cleanly or read back what it would write again.
func FuzzUnseal(f *testing.F) {
	key := bytes.Repeat([]byte{1}, keySize)
	good, err := seal(key, store{Service: {"n": "v"}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(fileMagic))
	f.Add([]byte{})
	f.Add(append([]byte(fileMagic), make([]byte, 40)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := unseal(key, data)
		if err != nil {
			return
		}
		again, err := seal(key, s)
		if err != nil {
			t.Fatal(err)
		}
		back, err := unseal(key, again)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(s, back); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
	})
}

// A key cut by a kill before any secret was sealed with it is made again;
// one whose secrets exist is said with its file and the fix.
func TestCutKeyFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "secrets.enc")
	os.WriteFile(path+".key", nil, 0o600) // the kill, between the create and the write
	f, err := NewFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Set("svc", "name", "v1"); err != nil {
		t.Fatalf("Set after a cut key that sealed nothing: %v", err)
	}
	if v, err := f.Get("svc", "name"); err != nil || v != "v1" {
		t.Fatalf("Get = %q, %v", v, err)
	}
	os.WriteFile(path+".key", []byte("short"), 0o600)
	err = f.Set("svc", "other", "v2")
	if err == nil || !strings.Contains(err.Error(), path+".key is 5 bytes long instead of 32") || !strings.Contains(err.Error(), "move it away") {
		t.Errorf("Set with a cut key that sealed secrets = %v, want the key file named and the fix", err)
	}
}
