package conformance

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBrokenFixtures proves each broken fixture fails exactly the check
// that names its fault, and no other.
func TestBrokenFixtures(t *testing.T) {
	needPython(t)
	tests := []struct {
		fixture string
		fails   string
	}{
		{"broken-manifest", CheckManifest},
		{"broken-start", CheckStart},
		{"broken-version", CheckInitialize},
		{"broken-stdout", CheckStdout},
		{"broken-slow", CheckDelay},
		{"broken-ids", CheckIDs},
		{"broken-batch", CheckBatch},
		{"broken-notification-batch", CheckNotificationBatch},
		{"broken-concurrent", CheckConcurrent},
		{"broken-unknown-method", CheckUnknownMethod},
		{"broken-secret", CheckHostRequests},
		{"broken-shutdown", CheckShutdown},
		{"broken-child", CheckChildren},
		{"broken-scenario", ScenarioPrefix + "echo"},
		{"broken-bench-file", CheckScenarios},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			t.Parallel()
			r := runBench(t, filepath.Join(fixtures, tt.fixture), testOptions())
			if diff := cmp.Diff([]string{tt.fails}, failures(r)); diff != "" {
				logReport(t, r)
				t.Errorf("failed checks (-want +got):\n%s", diff)
			}
			res, _ := r.Result(tt.fails)
			if res.Expected == "" || res.Got == "" || res.Fix == "" {
				t.Errorf("the failure of %s lacks what was expected, what came or the fix: %+v", tt.fails, res)
			}
		})
	}
}

// TestGoodPluginsPass runs the bench over the good fixture and the example
// plugins: every check passes, none is skipped.
func TestGoodPluginsPass(t *testing.T) {
	needPython(t)
	dirs := []string{
		filepath.Join(fixtures, "good-echo"),
		filepath.Join("..", "examples", "python-notes"),
		filepath.Join("..", "examples", "go-notes"),
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			r := runBench(t, dir, Options{})
			for name, status := range statuses(r) {
				if status != Pass {
					logReport(t, r)
					t.Fatalf("check %s: %s, want pass", name, status)
				}
			}
			if got, want := len(r.Results), len(Checks())-1; got < want {
				t.Errorf("%d rows, want at least the %d built-in checks", got, want)
			}
		})
	}
}

// TestGoodFixtureDetails checks what the good fixture's rows say: its
// scenarios are played, the fake secret reaches it, and its requests are
// counted.
func TestGoodFixtureDetails(t *testing.T) {
	needPython(t)
	r := runBench(t, filepath.Join(fixtures, "good-echo"), Options{})
	want := map[string]Status{
		ScenarioPrefix + "echo": Pass, ScenarioPrefix + "notes echo": Pass,
		ScenarioPrefix + "echo without text": Pass, ScenarioPrefix + "secret through the host": Pass,
	}
	got := map[string]Status{}
	for name, status := range statuses(r) {
		if _, ok := want[name]; ok {
			got[name] = status
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		logReport(t, r)
		t.Errorf("scenario rows (-want +got):\n%s", diff)
	}
	res, _ := r.Result(CheckHostRequests)
	if diff := cmp.Diff("it asked log ×1, secrets/get ×1, settings/get ×1", res.Detail); diff != "" {
		t.Errorf("host-requests detail (-want +got):\n%s", diff)
	}
}
