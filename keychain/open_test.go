package keychain

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpen(t *testing.T) {
	tests := []struct {
		kind string
		want string // the type returned, as %T prints it
	}{
		{KindSystem, "*keychain.System"},
		{KindFile, "*keychain.File"},
		{KindMemory, "*keychain.Memory"},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			kc, err := Open(tt.kind, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprintf("%T", kc); got != tt.want {
				t.Errorf("Open(%q) = %s, want %s", tt.kind, got, tt.want)
			}
		})
	}
}

func TestOpenFileLivesUnderHome(t *testing.T) {
	home := t.TempDir()
	kc, err := Open(KindFile, home)
	if err != nil {
		t.Fatal(err)
	}
	if err := kc.Set(Service, "n", "v"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, "secrets.enc")); err != nil {
		t.Errorf("no secrets.enc under home: %v", err)
	}
}

func TestOpenRefusesUnknownKinds(t *testing.T) {
	for _, kind := range []string{"", "System", "keyring", "file "} {
		t.Run(kind, func(t *testing.T) {
			_, err := Open(kind, t.TempDir())
			if err == nil {
				t.Fatalf("Open(%q) succeeded", kind)
			}
			for _, valid := range []string{"system", "file", "memory"} {
				if !strings.Contains(err.Error(), valid) {
					t.Errorf("error %q does not name %q", err, valid)
				}
			}
		})
	}
}
