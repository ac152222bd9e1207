package harness

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/manifest"
)

func TestVersions(t *testing.T) {
	parse := []struct{ out, want string }{
		{"goose 1.57.0\n", "1.57.0"}, {"v2.3 (build 7)", "2.3"}, {"tool 1.2.3-rc.1 extra", "1.2.3-rc.1"}, {"no version", ""},
	}
	for _, tt := range parse {
		got, _ := ParseVersion(tt.out)
		diff(t, tt.out, tt.want, got)
	}
	tested := manifest.Tested{Oldest: "1.57.0", Newest: "1.57.0"}
	notices := []struct {
		version string
		tested  manifest.Tested
		want    string
	}{
		{"1.60.0", tested, "Goose 1.60.0 has not been tried with this plugin (tried: 1.57.0)"},
		{"1.57.0", tested, ""},
		{"1.56.9", tested, "Goose 1.56.9 has not been tried with this plugin (tried: 1.57.0)"},
		{"1.57.0-rc.1", tested, "Goose 1.57.0-rc.1 has not been tried with this plugin (tried: 1.57.0)"},
		{"1.58.0", manifest.Tested{Oldest: "1.50.0"}, ""},
		{"1.49.0", manifest.Tested{Oldest: "1.50.0"}, "Goose 1.49.0 has not been tried with this plugin (tried: 1.50.0 and later)"},
		{"9.0.0", manifest.Tested{}, ""},
	}
	for _, tt := range notices {
		diff(t, tt.version, tt.want, TestedNotice("Goose", tt.version, tt.tested))
	}
}

func FuzzParseVersion(f *testing.F) {
	f.Add("goose 1.57.0")
	f.Fuzz(func(t *testing.T, out string) {
		v, ok := ParseVersion(out)
		if ok && !strings.Contains(out, v) {
			t.Fatalf("%q is not in %q", v, out)
		}
		compareVersions(v, "1.0.0")
	})
}

// TestVersionReadRules: the version is read only to compare it with a
// tested range; versionArgs [] reads nothing; a failed read is a notice
// only when the harness gave its versionArgs (docs/harness.md#finding-checking-and-launching-the-agent).
func TestVersionReadRules(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a shell script stands for an agent without --version")
	}
	fake := filepath.Join(binDir, "fake-acp")
	noVersion := filepath.Join(t.TempDir(), "codex-acp")
	if err := os.WriteFile(noVersion, []byte("#!/bin/sh\necho \"error: unexpected argument '$1' found\" >&2\nexit 2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside := manifest.Tested{Oldest: "1.1.0", Newest: "1.2.0"}
	tests := []struct {
		name    string
		program string
		probe   []string
		tested  manifest.Tested
		want    []string
	}{
		{"read and outside the range", fake, nil, outside, []string{"Fake ACP 1.0.0 has not been tried with this plugin (tried: 1.1.0 to 1.2.0)"}},
		{"versionArgs [] reads nothing", fake, []string{}, outside, nil},
		{"no tested range reads nothing", noVersion, []string{"--version"}, manifest.Tested{}, nil},
		{"the default --version failing is quiet", noVersion, nil, outside, nil},
		{"given versionArgs failing is a notice", noVersion, []string{"--version"}, outside,
			[]string{`cannot read the version of Fake ACP (codex-acp --version: exit status 2): it is not compared with the versions this plugin was tried with; an agent that prints no version has "versionArgs": [] in its harness entry`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &manifest.Harness{Name: manifest.PlainText("Fake ACP"), VersionProbe: tt.probe, Tested: tt.tested}
			s := &Session{harness: h, opts: Options{VersionTimeout: DefaultVersionTimeout}}
			diff(t, "notices", tt.want, s.versionNotices(context.Background(), tt.program, os.Environ()))
		})
	}
}
