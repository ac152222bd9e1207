//go:build unix

package registry

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/escouade-dev/escouade-plugin/manifest"
)

// devPlugin writes a process plugin folder whose manifest has extra keys.
func devPlugin(t *testing.T, extra string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "plugin.sh"), []byte("#!/bin/sh\necho one\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeDevManifest(t, dir, extra)
	return dir
}

func writeDevManifest(t *testing.T, dir, extra string) {
	t.Helper()
	body := `{"id":"dev.test.dev","name":"Dev","version":"1.0.0","escouade":{"api":"1"},"run":{"command":["./plugin.sh"]},"activation":["onCall"]` + extra + `}`
	if err := os.WriteFile(filepath.Join(dir, manifest.FileName), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// installDev installs dir under home, as a development install when dev.
func installDev(t *testing.T, home, dir string, dev bool) Entry {
	t.Helper()
	offer, err := Prepare(context.Background(), home, dir, InstallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	accept := offer.Accept
	if dev {
		accept = offer.AcceptDev
	}
	en, err := accept(offer.Granted())
	if err != nil {
		t.Fatal(err)
	}
	return en
}

func admit(t *testing.T, home, dir string) (Admission, error) {
	t.Helper()
	return AdmitStart(home, load(t, dir))
}

// A development install's rebuild or manifest edit that keeps its run and
// permissions is started without a review, said once, and recorded as
// consented.
func TestADevInstallsEditStartsWithoutAReview(t *testing.T) {
	home, dir := t.TempDir(), devPlugin(t, `,"permissions":{"network":["example.com"]}`)
	if en := installDev(t, home, dir, true); en.Dev == nil || en.Dev.Run == nil {
		t.Fatalf("the entry does not record the development install: %+v", en)
	}
	if err := os.WriteFile(filepath.Join(dir, "plugin.sh"), []byte("#!/bin/sh\necho two\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeDevManifest(t, dir, `,"permissions":{"network":["example.com"]},"description":"edited"`)
	a, err := admit(t, home, dir)
	if err != nil {
		t.Fatalf("an edit within the scope is refused: %v", err)
	}
	if !strings.HasPrefix(a.Note, DevRestarted+": ") {
		t.Errorf("note = %q", a.Note)
	}
	a, err = admit(t, home, dir)
	if err != nil || a.Note != "" {
		t.Errorf("the next start: %q, %v; want it consented, with no note", a.Note, err)
	}
	reg, _ := Open(home)
	if en, _ := reg.Get("dev.test.dev"); en.Dev == nil {
		t.Error("the re-record dropped the development install")
	}
}

// What a development install still asks a review for: its run (kind or
// command), its permissions, its limits, its harnesses' programs. The
// refusal names which, and nothing is recorded: it stays refused.
func TestADevInstallsScopeChangeAsksAgain(t *testing.T) {
	base := `,"permissions":{"network":["example.com"]}`
	tests := []struct{ name, extra, run, want string }{
		{"a permission added", `,"permissions":{"network":["example.com","evil.example"]}`, "", "whose permissions changed"},
		{"a permission of another kind", `,"permissions":{"network":["example.com"],"programs":["git"]}`, "", "whose permissions changed"},
		{"the limits raised", base + `,"limits":{"netMaxBytes":1000000}`, "", "whose limits changed"},
		{"a harness command", base + `,"contributes":{"harnesses":[{"id":"h","name":"H","locate":{"names":["sh"]},"acp":{"args":["-c","x"]}}]}`, "", "whose harnesses changed"},
		{"the run's command", base, `{"command":["./plugin.sh","--more"]}`, "whose run changed"},
		{"the run's kind", base, `{"js":"plugin.mjs"}`, "whose run changed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, dir := t.TempDir(), devPlugin(t, base)
			installDev(t, home, dir, true)
			extra := tt.extra
			if tt.run != "" {
				extra += `,"run":` + tt.run
				os.WriteFile(filepath.Join(dir, "plugin.mjs"), []byte("x"), 0o644)
			}
			writeRaw(t, dir, extra)
			for range 2 {
				_, err := admit(t, home, dir)
				var changed *ChangedError
				if !errors.As(err, &changed) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "review") {
					t.Fatalf("err = %v, want a ChangedError with %q", err, tt.want)
				}
			}
		})
	}
}

// writeRaw writes a manifest whose keys after the id's may replace run.
func writeRaw(t *testing.T, dir, extra string) {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(`{"id":"dev.test.dev","name":"Dev","version":"1.0.0","escouade":{"api":"1"},"run":{"command":["./plugin.sh"]},"activation":["onCall"]}`), &m); err != nil {
		t.Fatal(err)
	}
	var more map[string]any
	if err := json.Unmarshal([]byte("{"+strings.TrimPrefix(extra, ",")+"}"), &more); err != nil {
		t.Fatal(err)
	}
	for k, v := range more {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(dir, manifest.FileName), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Every other install is as strict as before: a rebuild stops it until
// reviewed, and installing again without the choice ends the development
// install.
func TestAPlainInstallIsUnchanged(t *testing.T) {
	home, dir := t.TempDir(), devPlugin(t, "")
	installDev(t, home, dir, true)
	if en := installDev(t, home, dir, false); en.Dev != nil {
		t.Fatalf("a plain install kept the development install: %+v", en.Dev)
	}
	if err := os.WriteFile(filepath.Join(dir, "plugin.sh"), []byte("#!/bin/sh\necho two\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	a, err := admit(t, home, dir)
	var changed *ChangedError
	if !errors.As(err, &changed) || a.Note != "" || strings.Contains(err.Error(), "development") {
		t.Fatalf("a plain install's rebuild: %q, %v; want the review asked, as before", a.Note, err)
	}
	reg, _ := Open(home)
	if en, _ := reg.Get("dev.test.dev"); CheckEntry(home, en, load(t, dir)) == nil {
		t.Error("CheckEntry lets a plain install's change through")
	}
}

// A development install is never read from the plugin's folder: a
// manifest key that names it is refused, not taken.
func TestAPluginCannotTurnItselfIntoADevInstall(t *testing.T) {
	dir := devPlugin(t, `,"dev":true`)
	if _, err := manifest.Load(dir, manifest.LoadOptions{}); err == nil || !strings.Contains(err.Error(), `unknown key "dev"`) {
		t.Fatalf("a manifest's dev key is not refused: %v", err)
	}
}

// Every difference of a permission list, its order and case included, is
// a change that asks for a review; equal lists are none.
func FuzzDevScopeAsksForEveryPermissionChange(f *testing.F) {
	f.Add("example.com", "example.com", "git", "")
	f.Add("a.example,b.example", "b.example,a.example", "", "")
	f.Add("Example.com", "example.com", "sh", "sh")
	f.Fuzz(func(t *testing.T, netA, netB, progA, progB string) {
		for _, s := range []string{netA, netB, progA, progB} {
			if !utf8.ValidString(s) {
				t.Skip("a manifest is JSON: its strings are UTF-8, as the scope's record is")
			}
		}
		list := func(s string) []string {
			if s == "" {
				return nil
			}
			return strings.Split(s, ",")
		}
		a := DevScope{Permissions: manifest.Permissions{Network: list(netA), Programs: list(progA)}}
		b := DevScope{Permissions: manifest.Permissions{Network: list(netB), Programs: list(progB)}}
		same := netA == netB && progA == progB
		switch got := a.changed(b); {
		case same && got != "":
			t.Fatalf("equal scopes said changed: %q", got)
		case !same && got != "permissions":
			t.Fatalf("%q/%q vs %q/%q: changed = %q, want permissions", netA, progA, netB, progB, got)
		}
	})
}
