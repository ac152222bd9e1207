package host

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/journal"
	"github.com/escouade-dev/escouade-plugin/registry"
)

// A development install whose folder changed within what was consented
// starts, and its journal says it started without a review; a plain
// install's same change stays stopped (TestAnAppsHostChecksConsentByDefault).
func TestADevInstallsChangeStartsAndIsJournaled(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	m := installedFakeAs(t, home, true)
	os.WriteFile(filepath.Join(m.Dir, "helper.py"), []byte("import os"), 0o644)
	p, err := newAppHost(t, home).AddInstalled("dev.test.fake")
	if err != nil {
		t.Fatal(err)
	}
	if out := p.Call(ctx, "test/echo", nil); out.IsDefault() {
		t.Fatalf("the development install's call = %+v, want it started", out)
	}
	want := " " + journal.TagStart + " " + registry.DevRestarted + ": a file helper.py was added"
	if err := p.Journal().Flush(); err != nil {
		t.Fatal(err)
	}
	lines, err := journal.ReadTail(home, "dev.test.fake", 50)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(lines, "\n"), want) {
		t.Errorf("the journal lacks %q:\n%s", want, strings.Join(lines, "\n"))
	}
}
