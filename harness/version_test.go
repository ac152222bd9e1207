package harness

import (
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
