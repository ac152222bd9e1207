package registry

import (
	"encoding/json"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRemove(t *testing.T) {
	home := t.TempDir()
	r, _ := Open(home)
	r.Put(Entry{ID: "dev.a.one"})
	r.Put(Entry{ID: "dev.a.two"})
	r.Remove("dev.a.one")
	r.Remove("dev.a.absent")
	if err := r.Save(); err != nil {
		t.Fatal(err)
	}
	again, _ := Open(home)
	if diff := cmp.Diff([]Entry{{ID: "dev.a.two"}}, again.List()); diff != "" {
		t.Errorf("after Remove (-want +got):\n%s", diff)
	}
}

func TestSettingsFile(t *testing.T) {
	home := t.TempDir()
	got, err := LoadSettings(home, "dev.a.one")
	if err != nil || len(got) != 0 {
		t.Fatalf("no file: %v, %v; want no value", got, err)
	}
	want := map[string]json.RawMessage{"greeting": json.RawMessage(`"bonjour"`), "retries": json.RawMessage(`5`)}
	if err := SaveSettings(home, "dev.a.one", want); err != nil {
		t.Fatal(err)
	}
	got, err = LoadSettings(home, "dev.a.one")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}
	info, err := os.Stat(SettingsPath(home, "dev.a.one"))
	if err != nil || (runtime.GOOS != "windows" && info.Mode().Perm() != 0o600) {
		t.Errorf("settings file mode %v, %v; want 0600", info.Mode(), err)
	}
	os.WriteFile(SettingsPath(home, "dev.a.one"), []byte("[1,"), 0o600)
	if _, err := LoadSettings(home, "dev.a.one"); err == nil || !strings.Contains(err.Error(), "is damaged") {
		t.Errorf("a damaged file: %v", err)
	}
}
