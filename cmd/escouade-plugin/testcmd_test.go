package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var benchFixtures = filepath.Join("..", "..", "tests", "fixtures", "plugins")

func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed: the fixture plugins cannot run here")
	}
}

// runTest runs cmdTest in-process and returns its outputs.
func runTest(args ...string) (stdout, stderr string, err error) {
	var out, errOut bytes.Buffer
	err = cmdTest(env{strings.NewReader(""), &out, &errOut}, args)
	return out.String(), errOut.String(), err
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

func TestCmdTestText(t *testing.T) {
	needPython(t)
	tests := []struct {
		fixture  string
		wantLast string
		wantErr  error
	}{
		{"good-echo", "19 passed, 0 failed", nil},
		{"broken-version", "4 passed, 1 failed", errFailed},
		{"broken-manifest", "0 passed, 1 failed", errFailed},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			t.Parallel()
			stdout, _, err := runTest(filepath.Join(benchFixtures, tt.fixture))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("cmdTest: %v, want %v\n%s", err, tt.wantErr, stdout)
			}
			if diff := cmp.Diff(tt.wantLast, lastLine(stdout)); diff != "" {
				t.Errorf("last line (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCmdTestJSON(t *testing.T) {
	needPython(t)
	stdout, _, err := runTest("--json", filepath.Join(benchFixtures, "broken-version"))
	if !errors.Is(err, errFailed) {
		t.Fatalf("cmdTest: %v, want errFailed", err)
	}
	var got struct {
		Plugin string `json:"plugin"`
		Checks []struct {
			Check, Status, Expected, Got, Fix string
		} `json:"checks"`
		Passed  int    `json:"passed"`
		Failed  int    `json:"failed"`
		Summary string `json:"summary"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("--json output is not one JSON object: %v\n%s", err, stdout)
	}
	if diff := cmp.Diff("dev.escouade.fixture.broken-version", got.Plugin); diff != "" {
		t.Errorf("plugin (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{4, 1}, []int{got.Passed, got.Failed}); diff != "" {
		t.Errorf("passed, failed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff("4 passed, 1 failed", got.Summary); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	for _, c := range got.Checks {
		if c.Status == "fail" && (c.Check != "initialize" || c.Expected == "" || c.Got == "" || c.Fix == "") {
			t.Errorf("failed check %+v: want initialize with expected, got and fix", c)
		}
	}
}

func TestCmdTestUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"no folder", nil},
		{"two folders", []string{"a", "b"}},
		{"unknown flag", []string{"--nope", "a"}},
		{"bad language", []string{"--lang", "de", "a"}},
		{"bad memory limit", []string{"--memory-limit", "lots", "a"}},
		{"bad delay", []string{"--delay", "shutdown=soon", "a"}},
		{"settings file missing", []string{"--settings", filepath.Join(t.TempDir(), "none.json"), "a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := runTest(tt.args...)
			if !isUsage(err) {
				t.Errorf("cmdTest(%q): %v, want a usage error", tt.args, err)
			}
		})
	}
}

// TestRunTestExitCodes goes through run, as the binary does: the
// registered command answers 0 for a plugin that passes, 1 for one that
// fails, 2 for a usage mistake.
func TestRunTestExitCodes(t *testing.T) {
	needPython(t)
	if _, ok := commands()["test"]; !ok {
		t.Fatal(`"test" is not registered in commands()`)
	}
	tests := []struct {
		args    []string
		want    int
		wantEnd string // how the last line of stdout ends, or of stderr for a usage mistake
	}{
		{[]string{"test", filepath.Join(benchFixtures, "good-echo")}, exitOK, " passed, 0 failed"},
		{[]string{"test", filepath.Join(benchFixtures, "broken-stdout")}, exitFail, " passed, 1 failed"},
		{[]string{"test"}, exitUsage, "escouade-plugin test: want one plugin folder: escouade-plugin test DIR [--json] (escouade-plugin help test)"},
	}
	for _, tt := range tests {
		var out, errOut bytes.Buffer
		got := run(tt.args, strings.NewReader(""), &out, &errOut)
		if got != tt.want {
			t.Errorf("run(%q) = %d, want %d\n%s%s", tt.args, got, tt.want, out.String(), errOut.String())
		}
		said := out.String()
		if tt.want == exitUsage {
			said = errOut.String()
		}
		if last := lastLine(said); !strings.HasSuffix(last, tt.wantEnd) {
			t.Errorf("run(%q): last line %q, want it to end %q", tt.args, last, tt.wantEnd)
		}
	}
}
