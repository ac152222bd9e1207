package embed_test

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// page is the page that quotes the Example.
const page = "../../docs/embedding.md"

// TestPageQuotesTheExample holds docs/embedding.md to embed_test.go: its
// go blocks, in order, joined by an empty line, are the file byte for
// byte, so the page shows the very code that runs, output included.
func TestPageQuotesTheExample(t *testing.T) {
	doc, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("embed_test.go")
	if err != nil {
		t.Fatal(err)
	}
	quoted := strings.Join(goBlocks(string(doc)), "\n")
	if d := cmp.Diff(string(src), quoted); d != "" {
		t.Errorf("%s's go blocks are not embed_test.go (-file +page):\n%s", page, d)
	}
}

// goBlocks are the bodies of the page's ```go blocks, each ending with a
// line break.
func goBlocks(doc string) []string {
	var blocks []string
	var body strings.Builder
	in := false
	for _, line := range strings.SplitAfter(doc, "\n") {
		switch {
		case !in && strings.TrimRight(line, "\n") == "```go":
			in = true
			body.Reset()
		case in && strings.TrimRight(line, "\n") == "```":
			in = false
			blocks = append(blocks, body.String())
		case in:
			body.WriteString(line)
		}
	}
	return blocks
}
