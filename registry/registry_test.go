package registry

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/escouade-dev/escouade-plugin/manifest"
)

func TestRoundTrip(t *testing.T) {
	home := t.TempDir()
	r, err := Open(home)
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{
		{ID: "dev.a.b", Dir: "/p/a", Version: "1.0.0", Granted: manifest.Permissions{Secrets: []string{"token"}}},
		{ID: "dev.c.d", Dir: "/p/c", Version: "2.0.0", Disabled: true},
	}
	for _, e := range want {
		r.Put(e)
	}
	if err := r.Save(); err != nil {
		t.Fatal(err)
	}
	again, err := Open(home)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, again.List()); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

func TestDamagedFileNamesTheFix(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, FileName), []byte("{nope"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(home)
	if err == nil || !strings.Contains(err.Error(), "install the plugins again") {
		t.Fatalf("err = %v, want a message naming the fix", err)
	}
}
