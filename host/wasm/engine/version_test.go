package engine

import (
	"os"
	"strings"
	"testing"
)

// The runtime's version in the compile cache's name is the one go.mod
// requires: read from the build, it follows an update by itself; a test
// binary carries no module list and gives requiredVersion, held here.
func TestVersionIsTheRequiredRuntimes(t *testing.T) {
	b, err := os.ReadFile("../../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if fields := strings.Fields(line); len(fields) >= 2 && fields[0] == runtimeModule {
			if requiredVersion != fields[1] || Version != fields[1] {
				t.Errorf("requiredVersion %q, Version %q; go.mod requires %s %s", requiredVersion, Version, runtimeModule, fields[1])
			}
			return
		}
	}
	t.Fatalf("go.mod does not require %s", runtimeModule)
}
