package web

import (
	"slices"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/acp"
	"github.com/escouade-dev/escouade-plugin/harness/term"
	"github.com/google/go-cmp/cmp"
)

// terminalHunks reads the diffs back from the terminal's plain text of an
// item: a line "  PATH" of one of the item's diff paths opens a hunk, and
// the lines "  " + " ", "-" or "+" after it are its lines.
func terminalHunks(text string, paths []string) []diffView {
	var hunks []diffView
	for _, line := range strings.Split(text, "\n") {
		body, indented := strings.CutPrefix(line, "  ")
		switch {
		case indented && slices.Contains(paths, body):
			hunks = append(hunks, diffView{Path: body, Lines: []string{}})
		case indented && len(hunks) > 0 && body != "" && strings.ContainsRune(" -+", rune(body[0])):
			last := &hunks[len(hunks)-1]
			last.Lines = append(last.Lines, body)
		}
	}
	return hunks
}

// The terminal and the Agents page draw the same hunks of the same card:
// same paths, same lines, in the same order.
func TestCardHunksAreTheSameOnTheTerminalAndThePage(t *testing.T) {
	old, gone, long := "one\ntwo\nthree\n", "bye\n", strings.Repeat("a line\n", 1100)
	options := []acp.PermissionOption{{ID: "y", Name: "Yes", Kind: "allow_once"}}
	items := []acp.Item{
		{Type: acp.TypePermission, Request: "r1", Name: "Edit", Title: "Edit a.txt", Description: "an edit", Options: options,
			Diffs: []acp.Diff{
				{Path: "/w/a.txt", OldText: &old, NewText: "one\n2\nthree\nfour\n"},
				{Path: "/w/new.txt", NewText: "fresh\n\tindented\n"},
				{Path: "/w/gone.txt", OldText: &gone},
			}},
		// Past the line table's bound, the whole of both texts is drawn.
		{Type: acp.TypePermission, Request: "r2", Name: "Write", Title: "Write big.txt", Options: options,
			Diffs: []acp.Diff{{Path: "/w/big.txt", OldText: &long, NewText: long + "end\n"}}},
		{Type: acp.TypeToolDone, ID: "t1", Name: "Edit", Status: "completed",
			Diffs: []acp.Diff{{Path: "/w/a.txt", OldText: &old, NewText: "zero\n" + old}}},
	}
	for _, it := range items {
		var r term.Renderer
		page := viewOf(it).Diffs
		if len(page) != len(it.Diffs) {
			t.Fatalf("%s: the page shows %d hunks of %d diffs", it.Title, len(page), len(it.Diffs))
		}
		var paths []string
		for _, h := range page {
			if len(h.Lines) == 0 {
				t.Fatalf("%s: a hunk of %s with no line", it.Title, h.Path)
			}
			paths = append(paths, h.Path)
		}
		if d := cmp.Diff(page, terminalHunks(r.Render(it), paths)); d != "" {
			t.Errorf("%s: the page's hunks (-) and the terminal's (+):\n%s", it.Title, d)
		}
	}
}
