package conformance

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// fixtures is the folder of the fixture plugins, from this package.
var fixtures = filepath.Join("..", "tests", "fixtures", "plugins")

// probeDelay shortens the wait for an answer that will not come to the
// bench's own probes, so a broken fixture costs a second, not five. The
// protocol's delays (initialize, shutdown, decisions) are kept.
const probeDelay = 2 * time.Second

func testOptions() Options {
	return Options{Delays: map[string]time.Duration{
		methodIDs: probeDelay, methodBatch: probeDelay, methodConcurrent: probeDelay, methodUnknown: probeDelay,
	}}
}

// needPython skips a test of the Python fixtures where python3 is missing.
func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the fixture plugins cannot run here")
	}
}

// statuses maps each row of a report to its status.
func statuses(r *Report) map[string]Status {
	m := map[string]Status{}
	for _, res := range r.Results {
		m[res.Check] = res.Status
	}
	return m
}

// failures lists the rows that failed.
func failures(r *Report) []string {
	var out []string
	for _, res := range r.Results {
		if res.Status == Fail {
			out = append(out, res.Check)
		}
	}
	return out
}

// runBench runs the bench over dir. Its own waits are the protocol's
// delays; the final stop is bounded by the test's deadline only.
func runBench(t *testing.T, dir string, opts Options) *Report {
	t.Helper()
	return Run(t.Context(), dir, opts)
}

// logReport writes the text report into the test log, for a failing test.
func logReport(t *testing.T, r *Report) {
	t.Helper()
	var b testWriter
	r.WriteText(&b)
	t.Log("\n" + string(b))
}

type testWriter []byte

func (w *testWriter) Write(p []byte) (int, error) {
	*w = append(*w, p...)
	return len(p), nil
}

func timeParse(s string) (time.Duration, error) { return time.ParseDuration(s) }
