package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func sampleReport() *Report {
	return &Report{Dir: "plugins/x", Plugin: "dev.escouade.x", Version: "1.0.0", Results: []Result{
		about(CheckManifest).pass(""),
		about(CheckMemory).pass("12.0 MB resident"),
		about(CheckIDs).fail("answers with the ids", "no answer with id 9007199254740993 within 5 s\nsecond line"),
		about(CheckChildren).skip("it did not exit by itself"),
	}, Stderr: []string{"Traceback: oops"}}
}

func TestWriteText(t *testing.T) {
	var b bytes.Buffer
	if err := sampleReport().WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := `dev.escouade.x 1.0.0 (plugins/x)

PASS  manifest  the manifest holds
PASS  memory    memory at idle: 12.0 MB resident
FAIL  ids       ids echoed exactly
                expected: answers with the ids
                got:      no answer with id 9007199254740993 within 5 s
                          second line
                fix:      ` + lookupCheck(CheckIDs).Fix + `
SKIP  children  nothing it started left behind: it did not exit by itself

last lines of its stderr:
  Traceback: oops

2 passed, 1 failed
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("text report (-want +got):\n%s", diff)
	}
}

func TestWriteJSON(t *testing.T) {
	var b bytes.Buffer
	if err := sampleReport().WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, b.String())
	}
	want := map[string]any{
		"dir": "plugins/x", "plugin": "dev.escouade.x", "version": "1.0.0",
		"passed": 2.0, "failed": 1.0, "summary": "2 passed, 1 failed",
		"stderr": []any{"Traceback: oops"},
		"checks": []any{
			map[string]any{"check": "manifest", "title": "the manifest holds", "status": "pass"},
			map[string]any{"check": "memory", "title": "memory at idle", "status": "pass", "detail": "12.0 MB resident"},
			map[string]any{"check": "ids", "title": "ids echoed exactly", "status": "fail",
				"expected": "answers with the ids",
				"got":      "no answer with id 9007199254740993 within 5 s\nsecond line",
				"fix":      lookupCheck(CheckIDs).Fix},
			map[string]any{"check": "children", "title": "nothing it started left behind", "status": "skip",
				"detail": "it did not exit by itself"},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("JSON report (-want +got):\n%s", diff)
	}
}

// TestEveryCheckHasAFix keeps the check table whole: a name, a title and a
// fix for each, no name twice.
func TestEveryCheckHasAFix(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Checks() {
		if c.Name == "" || c.Title == "" || c.Fix == "" || seen[c.Name] {
			t.Errorf("check %+v: want a unique name, a title and a fix", c)
		}
		seen[c.Name] = true
	}
}

func TestPluginsThatDoNotRun(t *testing.T) {
	tests := []struct {
		name     string
		run      string
		wantFail []string
		wantSkip string
	}{
		{"declarative", "", nil, "a declarative plugin: nothing runs"},
		{"run.js", `,"run":{"js":"dist/plugin.mjs"},"activation":["onCall"]`, []string{CheckStart}, "the program did not start"},
		{"run.wasm", `,"run":{"wasm":"Cargo.toml"},"activation":["onCall"]`, []string{CheckStart}, "the program did not start"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			manifest := `{"id":"dev.escouade.x","name":"x","version":"1.0.0","escouade":{"api":"1"}` + tt.run + `}`
			if err := os.WriteFile(filepath.Join(dir, "escouade-plugin.json"), []byte(manifest), 0o600); err != nil {
				t.Fatal(err)
			}
			r := Run(context.Background(), dir, Options{})
			if diff := cmp.Diff(tt.wantFail, failures(r)); diff != "" {
				t.Errorf("failures (-want +got):\n%s", diff)
			}
			if res, _ := r.Result(CheckStdout); res.Status != Skip || res.Detail != tt.wantSkip {
				t.Errorf("stdout row %+v: want skipped with %q", res, tt.wantSkip)
			}
			if res, _ := r.Result(CheckStart); res.Status == Fail && !strings.Contains(res.Got, "cannot run it") {
				t.Errorf("start row %+v: want it to say the bench cannot run it", res)
			}
		})
	}
}
