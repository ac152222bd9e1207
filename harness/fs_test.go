package harness

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/acp"
	"github.com/escouade-dev/escouade-plugin/internal/testutil"
	"github.com/escouade-dev/escouade-plugin/manifest"
)

func TestFSBehindTheFence(t *testing.T) {
	testutil.SkipUnderWine(t, testutil.WineLinks)
	w := newWorld(t)
	writeFile(t, filepath.Join(w.dir, "lines.txt"), "one\ntwo\nthree\nfour\n")
	writeFile(t, filepath.Join(w.fence, "secret.txt"), "secret")
	writeFile(t, filepath.Join(w.out, "open.txt"), "open")
	if err := os.Symlink(w.fence, filepath.Join(w.dir, "link")); err != nil {
		t.Fatal(err)
	}
	r := start(t, w.script(t, "fs.json"), Options{Cwd: w.dir, Fences: []string{w.fence}})
	r.untilType(acp.TypeSession)
	r.must(r.s.Prompt("files"))
	items := r.untilType(acp.TypeTurn)
	refused := func(method, path string) string {
		return method + " error: access refused: " + path + ": the path belongs to another private project"
	}
	diff(t, "what the agent got", []string{
		"read: two\nthree\n",
		"read: one\ntwo\nthree\nfour\n",
		"write: done",
		refused("fs/read_text_file", w.fence+"/secret.txt"), // the path as the agent gave it
		refused("fs/write_text_file", w.fence+"/planted.txt"),
		refused("fs/read_text_file", filepath.Join(w.dir, "link", "secret.txt")),
		refused("fs/read_text_file", w.dir+"/../fenced-not/../fenced/secret.txt"),
		`fs/read_text_file error: "relative.txt" is not an absolute path`,
		"fs/read_text_file error: Resource not found: open " + filepath.Join(w.dir, "missing.txt") + ": " + notFoundWords(t),
		"read: open",
	}, texts(items, acp.TypeText))
	made, err := os.ReadFile(filepath.Join(w.dir, "sub", "made.txt"))
	diff(t, "written file", "made by the agent", string(made))
	if err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(w.fence, "planted.txt")); !os.IsNotExist(err) {
		t.Errorf("a file was planted in the fenced project: %v", err)
	}
	diff(t, "notices", 4, len(ofType(items, acp.TypeNotice)))
	diff(t, "fs items", 10, len(ofType(items, acp.TypeFSRead, acp.TypeFSWrite)))
}

// notFoundWords is what this system says of a missing file ("no such file
// or directory" on Unix).
func notFoundWords(t *testing.T) string {
	_, err := os.Open(filepath.Join(t.TempDir(), "missing"))
	return errors.Unwrap(err).Error()
}

func TestFSOffWhileAFenceHolds(t *testing.T) {
	w := newWorld(t)
	m := fakeManifest(t, func(h *manifest.Harness) { h.ACP.ClientFS = ptr(false) })
	r := start(t, w.script(t, "fsoff.json"), Options{Cwd: w.dir, Fences: []string{w.fence}, Manifest: m})
	r.untilType(acp.TypeSession)
	r.must(r.s.Prompt("by itself"))
	items := r.untilType(acp.TypeTurn)
	secret := w.fence + "/secret.txt" // as the agent's script gives it
	diff(t, "notices", []string{
		"Fake reads or writes " + secret + " by itself: the private-project fence does not hold for its own file accesses",
	}, texts(items, acp.TypeNotice))
	diff(t, "the read it asked for", []string{"fs/read_text_file error: method not found: fs/read_text_file"}, texts(items, acp.TypeText))
	init := r.received()[0]
	if !strings.Contains(string(init["params"]), `"fs":{"readTextFile":false,"writeTextFile":false}`) {
		t.Errorf("initialize advertises fs: %s", init["params"])
	}
}

func TestSliceLines(t *testing.T) {
	text := "a\nb\nc\nd"
	tests := []struct {
		name        string
		line, limit *int
		want        string
	}{
		{"whole", nil, nil, text},
		{"from line 2", ptr(2), nil, "b\nc\nd"},
		{"limit 2", nil, ptr(2), "a\nb\n"},
		{"line 2 limit 1", ptr(2), ptr(1), "b\n"},
		{"last line", ptr(4), ptr(5), "d"},
		{"past the end", ptr(9), ptr(1), ""},
		{"line 0 is the first", ptr(0), ptr(1), "a\n"},
		{"negative line", ptr(-3), ptr(1), "a\n"},
		{"limit 0", ptr(1), ptr(0), ""},
		{"negative limit", ptr(1), ptr(-1), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			diff(t, "text", tt.want, sliceLines(text, tt.line, tt.limit))
		})
	}
}

func FuzzSliceLines(f *testing.F) {
	f.Add("a\nb\n", 1, 1)
	f.Add("", 0, 0)
	f.Add("x", -5, 99)
	f.Fuzz(func(t *testing.T, text string, line, limit int) {
		got := sliceLines(text, &line, &limit)
		if !strings.Contains(text, got) {
			t.Fatalf("%q is not part of %q", got, text)
		}
		if limit >= 0 && strings.Count(got, "\n") > limit {
			t.Fatalf("%q has more than %d lines", got, limit)
		}
	})
}
