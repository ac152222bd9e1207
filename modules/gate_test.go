package modules

import (
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/manifest"
)

func TestTheAppVersionGate(t *testing.T) {
	cases := []struct {
		kind    manifest.RunKind
		version string
		refused bool
	}{
		{manifest.RunJS, "2.1.9", true},
		{manifest.RunWASM, "2.0.0", true},
		{manifest.RunWASM, "2.2.0-rc.1", true}, // a prerelease comes before its release
		{manifest.RunJS, "2.2.0", false},
		{manifest.RunWASM, "3.0.0", false},
		{manifest.RunProcess, "1.0.0", false},
		{manifest.RunNone, "1.0.0", false},
		{manifest.RunJS, "dev", false}, // not semver: cannot be compared, as escouade.min
	}
	for _, c := range cases {
		err := CheckAppVersion(c.kind, c.version)
		if (err != nil) != c.refused {
			t.Errorf("%s under %s: err %v, want refused %v", c.kind, c.version, err, c.refused)
		}
		if err != nil && !strings.Contains(err.Error(), "needs Escouade 2.2.0 or later") {
			t.Errorf("%s under %s: %q lacks the reference's sentence", c.kind, c.version, err)
		}
	}
}
