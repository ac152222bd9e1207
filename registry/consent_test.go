//go:build unix

package registry

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/escouade-dev/escouade-plugin/host/wasm"
	"github.com/escouade-dev/escouade-plugin/jsrt"
	"github.com/escouade-dev/escouade-plugin/manifest"
)

// pluginDir writes a plugin folder: its manifest with run, and files.
func pluginDir(t *testing.T, run string, files map[string]string) *manifest.Manifest {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeManifest(t, dir, run)
	return load(t, dir)
}

// installed fingerprints m and records its folder under home, as an
// install does, and returns its consent.
func installed(t testing.TB, home string, m *manifest.Manifest) *Consent {
	t.Helper()
	c, rec, err := fingerprint(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := recordFolder(home, m.ID, rec); err != nil {
		t.Fatal(err)
	}
	return &c
}

func writeManifest(t *testing.T, dir, run string) {
	t.Helper()
	body := `{"id":"dev.test.consent","name":"Consent","version":"1.0.0","escouade":{"api":"1"},"run":` + run + `,"activation":["onCall"]}`
	if err := os.WriteFile(filepath.Join(dir, manifest.FileName), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func load(t *testing.T, dir string) *manifest.Manifest {
	t.Helper()
	m, err := manifest.Load(dir, manifest.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestModuleFileIsTheTransports(t *testing.T) {
	if ModuleFile != wasm.ModuleFile {
		t.Errorf("ModuleFile = %q, the WASM transport reads %q", ModuleFile, wasm.ModuleFile)
	}
}

// Each change of what a plugin runs after install is refused with a
// sentence that says what changed and how to review it; the folder as
// installed passes.
func TestConsentCheck(t *testing.T) {
	tests := []struct {
		name  string
		run   string
		files map[string]string
		edit  func(t *testing.T, m *manifest.Manifest) *manifest.Manifest
		want  string // "" passes
	}{
		{"unchanged bundle", `{"js":"dist/plugin.mjs"}`, map[string]string{"dist/plugin.mjs": "x"}, nil, ""},
		{"bundle to a shell", `{"js":"dist/plugin.mjs"}`, map[string]string{"dist/plugin.mjs": "x"}, func(t *testing.T, m *manifest.Manifest) *manifest.Manifest {
			writeManifest(t, m.Dir, `{"command":["sh","-c","id > marker"]}`)
			return load(t, m.Dir)
		}, "it ran a JS bundle inside Escouade and now runs a program on your computer"},
		{"manifest edited on disk, old one in memory", `{"js":"dist/plugin.mjs"}`, map[string]string{"dist/plugin.mjs": "x"}, func(t *testing.T, m *manifest.Manifest) *manifest.Manifest {
			writeManifest(t, m.Dir, `{"command":["sh","-c","id > marker"]}`)
			return m
		}, "its manifest escouade-plugin.json changed"},
		{"bundle edited", `{"js":"dist/plugin.mjs"}`, map[string]string{"dist/plugin.mjs": "x"}, func(t *testing.T, m *manifest.Manifest) *manifest.Manifest {
			os.WriteFile(filepath.Join(m.Dir, "dist/plugin.mjs"), []byte("y"), 0o644)
			return m
		}, "its program file dist/plugin.mjs changed"},
		{"module replaced", `{"wasm":"plugin.wasm"}`, map[string]string{"plugin.wasm": "\x00asm"}, func(t *testing.T, m *manifest.Manifest) *manifest.Manifest {
			os.WriteFile(filepath.Join(m.Dir, "plugin.wasm"), []byte("\x00asm2"), 0o644)
			return m
		}, "its program file plugin.wasm changed"},
		{"process program rebuilt", `{"command":["./bin/p","./main.py","--x"]}`, map[string]string{"bin/p": "1", "main.py": "a"}, func(t *testing.T, m *manifest.Manifest) *manifest.Manifest {
			os.WriteFile(filepath.Join(m.Dir, "bin/p"), []byte("2"), 0o755)
			return m
		}, "its program file bin/p changed"},
		{"process script edited", `{"command":["./bin/p","./main.py"]}`, map[string]string{"bin/p": "1", "main.py": "a"}, func(t *testing.T, m *manifest.Manifest) *manifest.Manifest {
			os.WriteFile(filepath.Join(m.Dir, "main.py"), []byte("b"), 0o644)
			return m
		}, "its program file main.py changed"},
		{"process program removed", `{"command":["./bin/p"]}`, map[string]string{"bin/p": "1"}, func(t *testing.T, m *manifest.Manifest) *manifest.Manifest {
			os.Remove(filepath.Join(m.Dir, "bin/p"))
			return m
		}, "its program file bin/p changed"},
		{"module a FIFO", `{"wasm":"plugin.wasm"}`, map[string]string{"plugin.wasm": "\x00asm"}, func(t *testing.T, m *manifest.Manifest) *manifest.Manifest {
			p := filepath.Join(m.Dir, "plugin.wasm")
			os.Remove(p)
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skip("no FIFO here:", err)
			}
			return m
		}, "plugin.wasm is a named pipe; the host reads only regular files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := pluginDir(t, tt.run, tt.files)
			home := t.TempDir()
			c := installed(t, home, m)
			if tt.edit != nil {
				m = tt.edit(t, m)
			}
			err := c.Check(home, m)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("unchanged folder refused: %v", err)
				}
				return
			}
			var changed *ChangedError
			if !errors.As(err, &changed) {
				t.Fatalf("Check = %v, want a ChangedError", err)
			}
			for _, part := range []string{tt.want, "the folder changed since it was installed", "escouade-plugin install " + m.Dir, "Review in the Plugins view"} {
				if !strings.Contains(err.Error(), part) {
					t.Errorf("refusal %q lacks %q", err, part)
				}
			}
		})
	}
}

// An install recorded before consents were needs a review.
func TestConsentMissingNeedsReview(t *testing.T) {
	m := pluginDir(t, `{"js":"p.mjs"}`, map[string]string{"p.mjs": "x"})
	var none *Consent
	err := none.Check(t.TempDir(), m)
	if err == nil || !strings.Contains(err.Error(), "installed before Escouade recorded what you consented to") {
		t.Errorf("Check of no consent = %v", err)
	}
}

// The consent survives the registry file.
func TestConsentIsSaved(t *testing.T) {
	m := pluginDir(t, `{"wasm":"plugin.wasm"}`, map[string]string{"plugin.wasm": "\x00asm"})
	c, err := Fingerprint(m)
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	reg, _ := Open(home)
	reg.Put(Entry{ID: m.ID, Dir: m.Dir, Version: m.Version, Consent: &c})
	if err := reg.Save(); err != nil {
		t.Fatal(err)
	}
	again, err := Open(home)
	if err != nil {
		t.Fatal(err)
	}
	en, _ := again.Get(m.ID)
	if err := en.Consent.Check(home, m); err != nil {
		t.Errorf("after a save: %v", err)
	}
}

// BenchmarkConsentCheck is the cost a start pays: the check of a process
// plugin whose program is a 16 MiB binary of its folder.
func BenchmarkConsentCheck(b *testing.B) {
	dir := b.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", "p"), make([]byte, 16<<20), 0o755); err != nil {
		b.Fatal(err)
	}
	body := `{"id":"dev.test.consent","name":"C","version":"1.0.0","escouade":{"api":"1"},"run":{"command":["./bin/p"]},"activation":["onCall"]}`
	if err := os.WriteFile(filepath.Join(dir, manifest.FileName), []byte(body), 0o644); err != nil {
		b.Fatal(err)
	}
	m, err := manifest.Load(dir, manifest.LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	home := b.TempDir()
	c := installed(b, home, m)
	b.SetBytes(16 << 20)
	for b.Loop() {
		if err := c.Check(home, m); err != nil {
			b.Fatal(err)
		}
	}
}

// A module or a bundle is fingerprinted within the limit its own reader
// keeps, so what could never run is refused before it is hashed.
func TestFingerprintLimitsAreTheReaders(t *testing.T) {
	if maxModule != wasm.MaxModuleBytes {
		t.Errorf("maxModule = %d, want host/wasm's %d", maxModule, wasm.MaxModuleBytes)
	}
	if maxBundle != jsrt.MaxBundleBytes {
		t.Errorf("maxBundle = %d, want jsrt's %d", maxBundle, jsrt.MaxBundleBytes)
	}
}
