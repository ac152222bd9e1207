//go:build linux

package hardening

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tsThrowsCopy copies testdata/ts-throws, a TypeScript plugin whose
// bundle and source map the SDK's build made (sdk/js's tests check that
// they still are), to a temp folder.
func tsThrowsCopy(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "ts-throws"))); err != nil {
		t.Fatal(err)
	}
	return dir
}

// journalLineWith is the first journal line of s that contains text,
// written already (a call's wait skips the lines before its answer) or
// waited for.
func journalLineWith(s *session, text string) string {
	s.t.Helper()
	want := func(l line) bool { return l.str("op") == "journal-line" && strings.Contains(l.str("line"), text) }
	for _, raw := range s.output() {
		if l := decode(raw); want(l) {
			return l.str("line")
		}
	}
	return s.next("a journal line with "+text, want).str("line")
}

// A TypeScript plugin's errors are journaled at their lines in its
// src/*.ts, through the source map the SDK's build wrote beside the
// bundle: a handler's thrown error (traced by the SDK) and an uncaught
// rejection, in the stderr lines and in the crash's detail.
func TestTypeScriptErrorsAreJournaledAtTheirSourceLines(t *testing.T) {
	s := run(t, tsThrowsCopy(t), "--follow")
	defer s.close()
	if a := s.call("1", "t/throw", nil); a.str("op") != "answer" || a["error"] == nil {
		t.Fatalf("t/throw: %v", a)
	}
	journalLineWith(s, "stderr sdk: t/throw failed: Error: boom 1")
	journalLineWith(s, "stderr     at boom (src/plugin.ts:9:13)")
	journalLineWith(s, "stderr     at <anonymous> (src/plugin.ts:13:")
	s.call("2", "t/crash", nil)
	crash := journalLineWith(s, "crash its instance crashed:")
	if !strings.Contains(crash, "unhandled rejection: Error: uncaught at <anonymous> (src/plugin.ts:17:") {
		t.Errorf("the crash's detail does not name the source line: %s", crash)
	}
	for _, l := range s.output() {
		if strings.Contains(string(l), "at boom (file:///plugin/dist/plugin.mjs:") {
			t.Errorf("a bundle position the map knows was journaled: %s", l)
		}
	}
}

// A source map is the plugin's own file: a hostile one (malformed, over
// its bound, pointing past its sources or anywhere) never stops the plugin
// nor puts a wrong file in the journal; the lines keep the bundle's
// positions, with one note of why the map was not used.
func TestAHostileSourceMapNeverStopsThePlugin(t *testing.T) {
	huge := `{"version":3,"sources":["../src/plugin.ts"],"mappings":"` + strings.Repeat("A", 9<<20) + `"}`
	maps := map[string]struct{ text, note string }{
		"malformed":             {`{"version":3,"sources":[`, "dist/plugin.mjs.map not used: "},
		"past its sources":      {`{"version":3,"sources":["../src/plugin.ts"],"mappings":"ACAA"}`, "not used: mappings: source index 1 of 1 sources"},
		"over its bound":        {huge, "not used: "},
		"a number past 32 bits": {`{"version":3,"sources":["a"],"mappings":"AAAgggggggB"}`, "not used: mappings: "},
	}
	for name, m := range maps {
		t.Run(name, func(t *testing.T) {
			dir := tsThrowsCopy(t)
			writeFile(t, filepath.Join(dir, "dist", "plugin.mjs.map"), []byte(m.text))
			s := run(t, dir, "--follow")
			defer s.close()
			s.call("1", "t/throw", nil)
			first := journalLineWith(s, "at boom (file:///plugin/dist/plugin.mjs:")
			if !strings.Contains(first, m.note) {
				t.Errorf("the first mapped line %q does not say %q", first, m.note)
			}
			if a := s.call("2", "t/throw", nil); a["error"] == nil {
				t.Errorf("the plugin no longer answers: %v", a)
			}
			if st := s.state(); st.str("state") != "ready" {
				t.Errorf("state %v", st)
			}
		})
	}
	// A map whose mappings point anywhere in a source is shown as it says;
	// a source named with control characters is escaped.
	dir := tsThrowsCopy(t)
	bundle, err := os.ReadFile(filepath.Join(dir, "dist", "plugin.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	before, _, _ := strings.Cut(string(bundle), "throw new Error(`boom")
	boomLine := strings.Count(before, "\n") // from 0
	writeFile(t, filepath.Join(dir, "dist", "plugin.mjs.map"), []byte(`{"version":3,"sources":["../\u001b[2J\nx.ts"],"mappings":"`+strings.Repeat(";", boomLine)+`AA+/////B+/////B"}`))
	s := run(t, dir, "--follow")
	defer s.close()
	s.call("1", "t/throw", nil)
	got := journalLineWith(s, "at boom (")
	if !strings.Contains(got, `at boom (\x1b[2J\nx.ts:`) {
		t.Errorf("%q", got)
	}
}
