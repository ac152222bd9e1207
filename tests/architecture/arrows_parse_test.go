package architecture

import (
	"slices"
	"strings"
	"testing"
)

const samplePage = "# Architecture\n\n## The packages\n\n### Every arrow\n\n" +
	"**2. The host**\n\n" +
	"- `host` → `jsonrpc` `host/wasm`\n" +
	"- `gone`\n\n" +
	"**1. The foundations**\n\n" +
	"- `jsonrpc`\n" +
	"- `low` → `host`\n\n" +
	"## The life of one call\n\n- `ignored` → `host`\n"

// TestMismatchesNameEveryFix: each kind of difference is one sentence
// naming the arrow or the line to change, and the changed lines are given
// whole.
func TestMismatchesNameEveryFix(t *testing.T) {
	imports := map[string][]string{
		"host":    {"jsonrpc", "host/process"},
		"jsonrpc": {},
		"low":     {"host"},
		"new":     {"host"},
	}
	got := mismatches(parseDrawing(samplePage), imports)
	want := []string{
		"add `host` → `host/process`: it is an import, not drawn",
		"remove `host` → `host/wasm`: it is drawn, not an import",
		"`new` has no line: add this one under layer 2 (The host) or above:\n\t- `new` → `host`",
		"remove the line of `gone`: the module has no such package",
		"`low` (layer 1, The foundations) imports `host` (layer 2, The host): a layer imports only its own and those below; move a package or the code that needs it",
		"the lines that change, as the imports are now:\n\t- `host` → `host/process` `jsonrpc`",
	}
	if !slices.Equal(got, want) {
		t.Errorf("mismatches:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestMismatchesOfAMatchingPage: a page that draws the imports exactly has
// nothing to fix, whatever the order of its arrows.
func TestMismatchesOfAMatchingPage(t *testing.T) {
	page := "### Every arrow\n\n**2. Up**\n\n- `b` → `c` `a`\n\n**1. Down**\n\n- `a`\n- `c` → `a`\n"
	imports := map[string][]string{"a": {}, "b": {"a", "c"}, "c": {"a"}}
	if got := mismatches(parseDrawing(page), imports); len(got) != 0 {
		t.Errorf("a matching page: %q", got)
	}
}

// TestParseDrawingFaults: a line before any layer, a package listed twice
// and a page without the list are said, not passed over.
func TestParseDrawingFaults(t *testing.T) {
	for page, want := range map[string]string{
		"### Every arrow\n- `a`\n":                        "`a` is listed before any layer",
		"### Every arrow\n**1. L**\n- `a`\n- `a` → `b`\n": "`a` is listed twice",
		"# Architecture\n- `a`\n":                         "the page has no section",
	} {
		faults := parseDrawing(page).faults
		if len(faults) != 1 || !strings.HasPrefix(faults[0], want) {
			t.Errorf("%q: faults %q, want one starting %q", page, faults, want)
		}
	}
}

// FuzzParseDrawing: any page parses without a panic, and every package it
// lists has a layer.
func FuzzParseDrawing(f *testing.F) {
	f.Add(samplePage)
	f.Add("### Every arrow\n**0. x**\n- `a` → `a`\n**99999999999999999999. y**\n- ``\n")
	f.Fuzz(func(t *testing.T, page string) {
		d := parseDrawing(page)
		for _, pkg := range d.order {
			if d.layers[pkg].number == 0 {
				t.Errorf("%q is listed with no layer", pkg)
			}
		}
	})
}

// TestStalePictureNames: a path the picture names that is no package (one
// moved away) is found; a package, a folder of packages and words without
// a slash pass.
func TestStalePictureNames(t *testing.T) {
	page := "## The packages\n\n```\n 4 host ──▶ host/wasm   internal/console\n   examples/*  tests/*\n```\n\n```\nnot/the/picture\n```\n"
	imports := map[string][]string{"host": {}, "host/wasm": {}, "examples/go-notes": {}}
	got := stalePictureNames(page, imports)
	if !slices.Equal(got, []string{"internal/console", "tests/*"}) {
		t.Errorf("stale names %q, want internal/console and tests/*", got)
	}
}
