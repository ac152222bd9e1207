package architecture

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"
)

// TestLinksIntoTheDocsResolve holds every link into a page of docs/ to the
// page's headings: a link `<page>.md#<anchor>` in a page of docs/, in a
// README.md or in a comment of a Go file fails when no heading of the page
// (nor an explicit <a id>) has that anchor. Anchors are GitHub's: the
// heading's text, lowercase, without what is not a letter, a digit, a
// space, '-' or '_', its spaces turned to '-', and a heading met again
// given -1, -2. Moving a section, or renaming its heading, then names every
// link to mend.
func TestLinksIntoTheDocsResolve(t *testing.T) {
	anchors := map[string]map[string]bool{} // docs/<page>.md, slash-separated from the root
	anchorsOf := func(page string) map[string]bool {
		if a, ok := anchors[page]; ok {
			return a
		}
		text, err := os.ReadFile(filepath.Join(moduleRoot, filepath.FromSlash(page)))
		if err != nil {
			anchors[page] = nil
			return nil
		}
		anchors[page] = pageAnchors(string(text))
		return anchors[page]
	}

	var broken []string
	check := func(from string, line int, target, anchor string) {
		a := anchorsOf(target)
		if a == nil {
			broken = append(broken, fmt.Sprintf("%s:%d: %s#%s: there is no page %s", from, line, target, anchor, target))
			return
		}
		if !a[anchor] {
			broken = append(broken, fmt.Sprintf("%s:%d: %s#%s: no heading of %s has this anchor", from, line, target, anchor, target))
		}
	}

	err := filepath.WalkDir(moduleRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", ".git", "target", "testdata":
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(moduleRoot, path)
		rel = filepath.ToSlash(rel)
		switch {
		case strings.HasSuffix(rel, ".md") && (strings.HasPrefix(rel, "docs/") || d.Name() == "README.md"):
			text, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, l := range markdownLinks(string(text)) {
				target := rel
				if l.file != "" {
					target = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(rel), l.file)))
				}
				if isDocsPage(target) {
					check(rel, l.line, target, l.anchor)
				}
			}
		case strings.HasSuffix(rel, ".go"):
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				return nil // not this test's to judge; the build says it
			}
			for _, group := range f.Comments {
				for _, c := range group.List {
					for _, l := range commentLinks(c.Text) {
						check(rel, fset.Position(c.Pos()).Line+l.line, l.file, l.anchor)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(broken) > 0 {
		sort.Strings(broken)
		t.Errorf("%d links into docs/ name an anchor the page does not have; point each at a heading of the page:\n- %s", len(broken), strings.Join(broken, "\n- "))
	}
}

// TestRationaleAsksEachQuestionOnce fails when two ### headings of
// docs/RATIONALE.md are the same: a decision is written once, and a
// heading met twice gets an anchor (-1) that nobody would guess.
func TestRationaleAsksEachQuestionOnce(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(moduleRoot, "docs", "RATIONALE.md"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for i, h := range headings(string(text)) {
		if h.level != 3 {
			continue
		}
		if first, ok := seen[h.text]; ok {
			t.Errorf("docs/RATIONALE.md asks %q twice (headings %d and %d): keep one, with the decision as it holds now", h.text, first+1, i+1)
			continue
		}
		seen[h.text] = i
	}
}

// isDocsPage says whether a slash-separated path from the root is a page
// of docs/.
func isDocsPage(p string) bool {
	return strings.HasPrefix(p, "docs/") && strings.HasSuffix(p, ".md") && !strings.Contains(strings.TrimPrefix(p, "docs/"), "/")
}

type heading struct {
	level int
	text  string
}

var (
	headingLine = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	htmlTag     = regexp.MustCompile(`<[^>]*>`)
	mdLink      = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	explicitID  = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
)

// outsideFences yields each line of a page that is not fenced code, with
// its index.
func outsideFences(text string) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		fence := ""
		for i, line := range strings.Split(text, "\n") {
			trimmed := strings.TrimSpace(line)
			switch {
			case fence != "":
				if strings.HasPrefix(trimmed, fence) {
					fence = ""
				}
			case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
				fence = trimmed[:3]
			default:
				if !yield(i, line) {
					return
				}
			}
		}
	}
}

// headings lists a page's ATX headings, outside fenced code.
func headings(text string) []heading {
	var out []heading
	for _, line := range outsideFences(text) {
		if m := headingLine.FindStringSubmatch(line); m != nil {
			out = append(out, heading{level: len(m[1]), text: m[2]})
		}
	}
	return out
}

// pageAnchors is every anchor of a page: its headings' slugs, numbered as
// GitHub numbers repeated ones, and its explicit <a id>s.
func pageAnchors(text string) map[string]bool {
	anchors := map[string]bool{}
	count := map[string]int{}
	for _, h := range headings(text) {
		s := slug(h.text)
		if n := count[s]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", s, n)] = true
		} else {
			anchors[s] = true
		}
		count[s]++
	}
	for _, m := range explicitID.FindAllStringSubmatch(text, -1) {
		anchors[m[1]] = true
	}
	return anchors
}

// slug is GitHub's anchor of a heading's text: the text as shown (no
// tags, a link's text, no backticks), lowercase, keeping letters, digits,
// spaces, '-' and '_', each space a '-'.
func slug(text string) string {
	text = htmlTag.ReplaceAllString(text, "")
	text = mdLink.ReplaceAllString(text, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

type link struct {
	line   int    // the link's line, from 1 in a page, from 0 in a comment
	file   string // the page linked to, as written; empty for the page itself
	anchor string
}

var (
	// mdTarget is a link's target in a page: (page.md#anchor) or (#anchor).
	mdTarget = regexp.MustCompile(`\]\(((?:[^()\s#]*\.md)?)#([^)\s]+)\)`)
	// goTarget is a page of docs/ named in a comment: docs/<page>.md#<anchor>.
	goTarget = regexp.MustCompile(`(?:^|[^\w./-])((?:\.\./)*docs/[\w.-]+\.md)#([\p{L}\p{N}_-]+)`)
)

// markdownLinks lists a page's links that carry an anchor, outside fenced
// code.
func markdownLinks(text string) []link {
	var out []link
	for i, line := range outsideFences(text) {
		for _, m := range mdTarget.FindAllStringSubmatch(line, -1) {
			if strings.Contains(m[1], "://") {
				continue
			}
			out = append(out, link{line: i + 1, file: m[1], anchor: m[2]})
		}
	}
	return out
}

// commentLinks lists the links into docs/ of one comment; a path that
// climbs (../docs/) is read from the root all the same.
func commentLinks(comment string) []link {
	var out []link
	for i, line := range strings.Split(comment, "\n") {
		for _, m := range goTarget.FindAllStringSubmatch(line, -1) {
			file := strings.TrimLeft(m[1], "./")
			out = append(out, link{line: i, file: file, anchor: m[2]})
		}
	}
	return out
}
