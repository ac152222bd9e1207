package rust

import (
	"io/fs"
	"strings"
	"testing"
)

// TestVersionIsTheCrates keeps Name and Version in step with Cargo.toml.
func TestVersionIsTheCrates(t *testing.T) {
	b, err := fs.ReadFile(Source, "Cargo.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`name = "` + Name + `"`, `version = "` + Version + `"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("Cargo.toml lacks %s", want)
		}
	}
}
