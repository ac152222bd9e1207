package jsrt

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/manifest"
)

// A map of two sources: line 1 of the bundle is a.ts:1:1, line 2 from
// column 0 is a.ts:3:3, from column 2 a.ts:3:4; line 3 has a segment
// that maps to nothing, then b.ts:1:1 from column 4.
const twoSources = `{"version":3,"sources":["../src/a.ts","../node_modules/x/b.js"],"mappings":"AAAA;AAEE,EAAC;A,ICFH"}`

func TestSourceMapLookup(t *testing.T) {
	m, err := parseSourceMap([]byte(twoSources), "dist")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		line, col int
		want      string
	}{
		{0, 0, "src/a.ts 0 0"},
		{0, 99, "src/a.ts 0 0"},
		{1, 0, "src/a.ts 2 2"},
		{1, 1, "src/a.ts 2 2"},
		{1, 2, "src/a.ts 2 3"},
		{2, 0, "none"},
		{2, 3, "none"},
		{2, 4, "node_modules/x/b.js 0 0"},
		{3, 0, "none"},
		{-1, 0, "none"},
		{1, -1, "none"},
	}
	for _, c := range cases {
		src, l, col, ok := m.lookup(c.line, c.col)
		got := "none"
		if ok {
			got = strings.Join([]string{src, strconv.Itoa(l), strconv.Itoa(col)}, " ")
		}
		if got != c.want {
			t.Errorf("lookup(%d, %d) = %s, want %s", c.line, c.col, got, c.want)
		}
	}
}

func TestVLQ(t *testing.T) {
	cases := map[string]int64{"A": 0, "C": 1, "D": -1, "gB": 16, "hB": -16, "+/////B": 1<<30 - 1}
	for text, want := range cases {
		got, used, err := vlq(text)
		if err != nil || got != want || used != len(text) {
			t.Errorf("vlq(%q) = %d, %d, %v; want %d", text, got, used, err, want)
		}
	}
	for _, bad := range []string{"", "g", "////////A", "!", "gg"} {
		if _, _, err := vlq(bad); err == nil {
			t.Errorf("vlq(%q): no error", bad)
		}
	}
}

// Maps an attacker writes: each is refused whole, never half used.
func TestSourceMapRefusesHostileMaps(t *testing.T) {
	cases := map[string]string{
		"not JSON":              `{"version":3,`,
		"version 2":             `{"version":2,"sources":["a"],"mappings":"AAAA"}`,
		"index map":             `{"version":3,"sections":[{"offset":{"line":0,"column":0},"map":{}}]}`,
		"source out of range":   `{"version":3,"sources":["a"],"mappings":"ACAA"}`,
		"negative source":       `{"version":3,"sources":["a"],"mappings":"ADAA"}`,
		"negative line":         `{"version":3,"sources":["a"],"mappings":"AADA"}`,
		"negative column":       `{"version":3,"sources":["a"],"mappings":"D"}`,
		"two fields":            `{"version":3,"sources":["a"],"mappings":"AA"}`,
		"six fields":            `{"version":3,"sources":["a"],"mappings":"AAAAAA"}`,
		"out of order":          `{"version":3,"sources":["a"],"mappings":"EAAA,DAAA"}`,
		"not base64":            `{"version":3,"sources":["a"],"mappings":"A*AA"}`,
		"column past 31 bits":   `{"version":3,"sources":["a"],"mappings":"AAA+/////D,AAA+/////D"}`,
		"too many lines":        `{"version":3,"sources":[],"mappings":"` + strings.Repeat(";", maxMapLines+1) + `"}`,
		"too many segments":     `{"version":3,"sources":[],"mappings":"` + strings.Repeat("A,", maxMapSegments+1) + `"}`,
		"too many sources":      `{"version":3,"sources":[` + strings.TrimSuffix(strings.Repeat(`"a",`, maxMapSources+1), ",") + `],"mappings":""}`,
		"mappings not a string": `{"version":3,"sources":["a"],"mappings":7}`,
	}
	for name, text := range cases {
		if _, err := parseSourceMap([]byte(text), "dist"); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestSourceNames(t *testing.T) {
	cases := []struct{ dir, root, source, want string }{
		{"dist", "", "../src/plugin.ts", "src/plugin.ts"},
		{".", "", "src/plugin.ts", "src/plugin.ts"},
		{"dist", "../src", "plugin.ts", "src/plugin.ts"},
		{"dist", "", "webpack://x/y.ts", "webpack://x/y.ts"},
		{"dist", "", "/abs/y.ts", "/abs/y.ts"},
		{"dist", "", "../../../outside.ts", "../../outside.ts"},
		{"dist", "", "a\nb\x1b[31m.ts", `dist/a\nb\x1b[31m.ts`},
		{"dist", "", strings.Repeat("x", 300), "dist/" + strings.Repeat("x", maxSourceName-5) + "…"},
	}
	for _, c := range cases {
		if got := sourceName(c.dir, c.root, c.source); got != c.want {
			t.Errorf("sourceName(%q, %q, %q) = %q, want %q", c.dir, c.root, c.source, got, c.want)
		}
	}
}

// pluginWithMap is a plugin folder whose bundle is dist/plugin.mjs, with
// map beside it unless map is "".
func pluginWithMap(t *testing.T, mapText string) *manifest.Manifest {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "dist"), 0o755); err != nil {
		t.Fatal(err)
	}
	if mapText != "" {
		if err := os.WriteFile(filepath.Join(dir, "dist", "plugin.mjs.map"), []byte(mapText), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return &manifest.Manifest{Dir: dir, Run: &manifest.Run{JS: "dist/plugin.mjs"}}
}

func TestStackMapperRewritesBundlePositions(t *testing.T) {
	mapLine := New().StackMapper(pluginWithMap(t, twoSources))
	cases := map[string]string{
		"    at boom (file:///plugin/dist/plugin.mjs:2:3)":                                           "    at boom (src/a.ts:3:4)",
		"escouade: crashed: Error: x at f (file:///plugin/dist/plugin.mjs:1:5)":                      "escouade: crashed: Error: x at f (src/a.ts:1:1)",
		"    at g (file:///plugin/dist/plugin.mjs:3:5) and file:///plugin/dist/plugin.mjs:2:1 again": "    at g (node_modules/x/b.js:1:1) and src/a.ts:3:3 again",
		"    at step (escouade:runtime:25:6)":                                                        "    at step (escouade:runtime:25:6)",
		"    at h (file:///plugin/dist/plugin.mjs:3:1)":                                              "    at h (file:///plugin/dist/plugin.mjs:3:1)",
		"    at h (file:///plugin/dist/plugin.mjs:99:1)":                                             "    at h (file:///plugin/dist/plugin.mjs:99:1)",
		"file:///plugin/dist/plugin.mjs:2":                                                           "file:///plugin/dist/plugin.mjs:2",
		"file:///plugin/dist/plugin.mjs:2:":                                                          "file:///plugin/dist/plugin.mjs:2:",
		"file:///plugin/dist/plugin.mjs:1234567890:1":                                                "file:///plugin/dist/plugin.mjs:1234567890:1",
		"file:///plugin/dist/plugin.mjs:0:0":                                                         "file:///plugin/dist/plugin.mjs:0:0",
	}
	for in, want := range cases {
		if got := mapLine(in); got != want {
			t.Errorf("%q\n got %q\nwant %q", in, got, want)
		}
	}
}

func TestStackMapperWithoutAUsableMap(t *testing.T) {
	line := "    at boom (file:///plugin/dist/plugin.mjs:2:3)"
	if got := New().StackMapper(pluginWithMap(t, ""))(line); got != line {
		t.Errorf("without a map: %q", got)
	}
	broken := New().StackMapper(pluginWithMap(t, `{"version":3,"sources":["a"],"mappings":"ACAA"}`))
	want := line + " (dist/plugin.mjs.map not used: mappings: source index 1 of 1 sources)"
	if got := broken(line); got != want {
		t.Errorf("broken map, first line:\n got %q\nwant %q", got, want)
	}
	if got := broken(line); got != line {
		t.Errorf("broken map, second line: %q (the note is said once)", got)
	}
	if New().StackMapper(&manifest.Manifest{Run: &manifest.Run{WASM: "plugin.wasm"}}) != nil {
		t.Error("a mapper for a module of its own")
	}
	if New().StackMapper(&manifest.Manifest{Run: &manifest.Run{JS: "../x.mjs"}}) != nil {
		t.Error("a mapper for a bundle outside the folder")
	}
}

func TestStackMapperRefusesAnOversizedMap(t *testing.T) {
	m := pluginWithMap(t, "")
	f, err := os.Create(filepath.Join(m.Dir, "dist", "plugin.mjs.map"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxSourceMapBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	got := New().StackMapper(m)("at f (file:///plugin/dist/plugin.mjs:1:1)")
	if !strings.Contains(got, "(dist/plugin.mjs.map not used: ") || !strings.HasPrefix(got, "at f (file:///plugin/dist/plugin.mjs:1:1)") {
		t.Errorf("%q", got)
	}
}

// FuzzSourceMap: whatever the map and the stack line, decoding and mapping
// end without a panic, within the map's bounds, and a line stays one line.
func FuzzSourceMap(f *testing.F) {
	f.Add([]byte(twoSources), "    at boom (file:///plugin/dist/plugin.mjs:2:3)")
	f.Add([]byte(`{"version":3,"sources":["\n"],"mappings":"AAAA,gBAAgB;;;+/////B"}`), "file:///plugin/dist/plugin.mjs:4:1")
	f.Add([]byte(`{"version":3,"sources":["a"],"sourceRoot":"../../","mappings":";;;;A"}`), "file:///plugin/dist/plugin.mjs:1:1:1")
	f.Fuzz(func(t *testing.T, mapText []byte, line string) {
		m, err := parseSourceMap(mapText, "dist")
		if err != nil {
			return
		}
		if len(m.segs) > maxMapSegments || len(m.lines) > maxMapLines+2 {
			t.Fatalf("%d segments, %d lines", len(m.segs), len(m.lines))
		}
		got := mapPositions(line, "file:///plugin/dist/plugin.mjs:", m)
		if strings.Count(got, "\n") != strings.Count(line, "\n") {
			t.Errorf("%q became %q", line, got)
		}
	})
}
