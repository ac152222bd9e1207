package manifest

import "testing"

func TestCompareVersions(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"1.0.0", "1.0.0", 0},
		{"1.0.0", "2.0.0", -1},
		{"2.1.0", "2.0.9", 1},
		{"1.10.0", "1.9.0", 1},
		{"1.0.0-alpha", "1.0.0", -1},
		{"1.0.0-alpha", "1.0.0-alpha.1", -1},
		{"1.0.0-alpha.1", "1.0.0-alpha.beta", -1},
		{"1.0.0-beta.2", "1.0.0-beta.11", -1},
		{"1.0.0-rc.1", "1.0.0-beta.11", 1},
		{"1.0.0+build.5", "1.0.0+build.1", 0},
		{"v2.2.0", "2.2.0", 0},
	}
	for _, tt := range tests {
		a, okA := parseVersion(tt.a)
		b, okB := parseVersion(tt.b)
		if !okA || !okB {
			t.Fatalf("parse %q, %q: %v, %v", tt.a, tt.b, okA, okB)
		}
		if got := compareVersions(a, b); got != tt.want {
			t.Errorf("compare(%s, %s) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := compareVersions(b, a); got != -tt.want {
			t.Errorf("compare(%s, %s) = %d, want %d", tt.b, tt.a, got, -tt.want)
		}
	}
}

func TestParseVersionRefuses(t *testing.T) {
	for _, s := range []string{"", "1", "1.0", "1.0.0.0", "01.0.0", "1.0.0-", "1.0.0-a..b", "a.b.c", "1.0.-1", "99999999999999999999.0.0"} {
		if _, ok := parseVersion(s); ok {
			t.Errorf("parseVersion(%q) accepted", s)
		}
	}
}

func TestMinVersionWithUnknownApp(t *testing.T) {
	data := manifestWith(t, set("/escouade/min", `"9.0.0"`))
	for _, app := range []string{"", "dev", "2.2"} {
		if _, err := Parse(data, LoadOptions{AppVersion: app}); err != nil {
			t.Errorf("AppVersion %q: %v", app, err)
		}
	}
}
