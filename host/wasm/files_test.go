package wasm

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/transport"
)

// /plugin holds the root JSON files within their limits, never the
// manifest, and a line names each file left out.
func TestPluginFiles(t *testing.T) {
	tr := newTransport(t, Options{FileLimit: 100, FilesLimit: 150})
	files := map[string]string{
		manifest.FileName: `{"id":"x"}`,
		"a.json":          strings.Repeat("a", 60),
		"b.json":          strings.Repeat("b", 60),
		"c.json":          strings.Repeat("c", 101),
		"d.json":          strings.Repeat("d", 30),
		"e.json":          strings.Repeat("e", 31),
		"notes.txt":       "not JSON",
		".hidden.json":    "{}",
	}
	m := pluginDir(t, fixture(t, "reactor"), files)
	var j journal
	prog := launch(t, tr, specOf(m, transport.LaunchSpec{Journal: j.add}))
	conn := connect(t, prog, nil)
	got := call[map[string]string](t, conn, "files", nil)
	want := map[string]string{"a.json": files["a.json"], "b.json": files["b.json"], "d.json": files["d.json"]}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("/plugin (-want +got):\n%s", diff)
	}
	wantLines := []string{
		"wasm c.json left out of /plugin: 101 bytes, past the limit of 100 bytes a file",
		"wasm e.json left out of /plugin: with it the files would hold 181 bytes, past the limit of 150 bytes in all",
	}
	var left []string
	for _, l := range j.all() {
		if strings.Contains(l, "left out") {
			left = append(left, l)
		}
	}
	if diff := cmp.Diff(wantLines, left); diff != "" {
		t.Errorf("journal (-want +got):\n%s", diff)
	}
	if got := call[string](t, conn, "write", nil); got == "" {
		t.Error("a write in /plugin succeeded")
	}
}

// The default limits are 256 KB a file and 1 MB in all.
func TestPluginFilesDefaults(t *testing.T) {
	dir := pluginDir(t, nil, map[string]string{
		"big.json": strings.Repeat(" ", 256<<10+1),
		"f1.json":  strings.Repeat(" ", 256<<10),
		"f2.json":  strings.Repeat(" ", 256<<10),
		"f3.json":  strings.Repeat(" ", 256<<10),
		"f4.json":  strings.Repeat(" ", 256<<10),
		"f5.json":  "{}",
	}).Dir
	o := Options{}.withDefaults()
	var lines []string
	got, err := pluginFiles(dir, o.FileLimit, o.FilesLimit, func(s string) { lines = append(lines, s) })
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"f1.json", "f2.json", "f3.json", "f4.json"}, names(got)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	want := []string{
		"big.json left out of /plugin: 257 KB, past the limit of 256 KB a file",
		"f5.json left out of /plugin: with it the files would hold 1025 KB, past the limit of 1024 KB in all",
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("journal (-want +got):\n%s", diff)
	}
}

func names(fs fstest.MapFS) []string {
	var out []string
	for name := range fs {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// Thousands of files left out make a line each for the first five, and
// one line that counts the others and names a few.
func TestPluginFilesLeftOutCounted(t *testing.T) {
	files := map[string]string{}
	for i := range 2000 {
		files[fmt.Sprintf("f%04d.json", i)] = "{}"
	}
	dir := pluginDir(t, nil, files).Dir
	var lines []string
	got, err := pluginFiles(dir, 100, 10, func(s string) { lines = append(lines, s) })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 {
		t.Fatalf("%d files given, want the 5 that fit in 10 bytes", len(got))
	}
	want := []string{
		"f0005.json left out of /plugin: with it the files would hold 12 bytes, past the limit of 10 bytes in all",
		"f0006.json left out of /plugin: with it the files would hold 12 bytes, past the limit of 10 bytes in all",
		"f0007.json left out of /plugin: with it the files would hold 12 bytes, past the limit of 10 bytes in all",
		"f0008.json left out of /plugin: with it the files would hold 12 bytes, past the limit of 10 bytes in all",
		"f0009.json left out of /plugin: with it the files would hold 12 bytes, past the limit of 10 bytes in all",
		"1990 more files left out of /plugin (past its limits of 100 bytes a file and 10 bytes in all, or unreadable): f0010.json, f0011.json, f0012.json, f0013.json, f0014.json, …",
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("journal (-want +got):\n%s", diff)
	}
}
