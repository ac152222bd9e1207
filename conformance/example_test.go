package conformance_test

import (
	"context"
	"os"

	"github.com/escouade-dev/escouade-plugin/conformance"
)

// The bench plays the host against a plugin's program and writes its
// report: a table of checks, then "12 passed, 0 failed". It starts the
// plugin's program, so it is compiled, not run.
func Example() {
	report := conformance.Run(context.Background(), "plugins/slack", conformance.Options{})
	_ = report.WriteText(os.Stdout)
}
