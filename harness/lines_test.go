package harness

import (
	"bytes"
	"strings"
	"testing"
)

func TestReadLines(t *testing.T) {
	input := "one\n\n" + strings.Repeat("x", 100) + "\ntwo\r\nlast"
	out := make(chan line, 10)
	readLines(strings.NewReader(input), 50, out)
	close(out)
	var got []string
	for l := range out {
		if l.dropped > 0 {
			got = append(got, "dropped")
			continue
		}
		got = append(got, strings.TrimRight(string(l.data), "\r\n"))
	}
	diff(t, "lines", []string{"one", "\n", "dropped", "two", "last"}, fixEmpty(got))
}

// fixEmpty shows an empty line as "\n": readLines hands it on as it is.
func fixEmpty(lines []string) []string {
	for i, l := range lines {
		if l == "" {
			lines[i] = "\n"
		}
	}
	return lines
}

func FuzzReadLines(f *testing.F) {
	f.Add([]byte("a\nbb\nccc"), 2)
	f.Fuzz(func(t *testing.T, input []byte, max int) {
		max = max%64 + 65
		out := make(chan line, len(input)+1)
		readLines(bytes.NewReader(input), max, out)
		close(out)
		for l := range out {
			if len(l.data) > max {
				t.Fatalf("a line of %d bytes over %d", len(l.data), max)
			}
			if !bytes.Contains(input, l.data) {
				t.Fatalf("line %q is not in the input", l.data)
			}
		}
	})
}
