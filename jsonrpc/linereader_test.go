package jsonrpc

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// readResult is one return of LineReader.Next.
type readResult struct {
	Line    string
	TooLong bool
}

// readAll reads lines until an error and returns them with the error.
func readAll(r io.Reader, max int) ([]readResult, error) {
	lines := NewLineReader(r, max)
	var got []readResult
	for {
		line, tooLong, err := lines.Next()
		if err != nil {
			return got, err
		}
		got = append(got, readResult{string(line), tooLong})
	}
}

func TestLineReader(t *testing.T) {
	big := strings.Repeat("b", 3*readBufferSize)
	tests := []struct {
		name string
		in   string
		max  int
		want []readResult
	}{
		{"lines", "a\nb\n", 0, []readResult{{"a", false}, {"b", false}}},
		{"CRLF", "a\r\nb\r\n", 0, []readResult{{"a", false}, {"b", false}}},
		{"only the last CR goes", "a\r\r\n", 0, []readResult{{"a\r", false}}},
		{"lone CR inside", "a\rb\n", 0, []readResult{{"a\rb", false}}},
		{"blank lines skipped", "\n\r\n \t\na\n\n", 0, []readResult{{"a", false}}},
		{"last line without newline", "a\nb", 0, []readResult{{"a", false}, {"b", false}}},
		{"last line CR only", "a\nb\r", 0, []readResult{{"a", false}, {"b", false}}},
		{"empty stream", "", 0, nil},
		{"only blanks", "\n\n  \n", 0, nil},
		{"exactly max", "abcd\n", 4, []readResult{{"abcd", false}}},
		{"exactly max with CRLF", "abcd\r\n", 4, []readResult{{"abcd", false}}},
		{"one over max", "abcde\nok\n", 4, []readResult{{"abcde", true}, {"ok", false}}},
		{"over max with CRLF", "abcde\r\nok\n", 4, []readResult{{"abcde", true}, {"ok", false}}},
		{"over max excerpt is 200 bytes", strings.Repeat("x", 300) + "\nok\n", 250,
			[]readResult{{strings.Repeat("x", 200), true}, {"ok", false}}},
		{"over max at the end", "ok\n" + strings.Repeat("y", 20), 10,
			[]readResult{{"ok", false}, {strings.Repeat("y", 20), true}}},
		{"over max excerpt at the end", "ok\n" + strings.Repeat("y", 300), 10,
			[]readResult{{"ok", false}, {strings.Repeat("y", 200), true}}},
		{"long line spanning reads", big + "\nz\n", 0, []readResult{{big, false}, {"z", false}}},
		{"long line over max resyncs", big + "\nz\n", readBufferSize,
			[]readResult{{big[:ExcerptLen], true}, {"z", false}}},
		{"long line over max at the end", "z\n" + big, readBufferSize,
			[]readResult{{"z", false}, {big[:ExcerptLen], true}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, r := range []struct {
				name string
				r    io.Reader
			}{
				{"whole", strings.NewReader(tc.in)},
				{"byte by byte", iotest.OneByteReader(strings.NewReader(tc.in))},
				{"data with EOF", iotest.DataErrReader(strings.NewReader(tc.in))},
			} {
				got, err := readAll(r.r, tc.max)
				if !errors.Is(err, io.EOF) {
					t.Errorf("%s: final error %v, want io.EOF", r.name, err)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("%s: lines (-want +got):\n%s", r.name, diff)
				}
			}
		})
	}
}

func TestLineReaderTooLongExcerptShorterThanLine(t *testing.T) {
	// The excerpt of a line over a small max is still the line's first
	// ExcerptLen bytes.
	got, _ := readAll(strings.NewReader("0123456789\n"), 3)
	want := []readResult{{"0123456789", true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestLineReaderReadError(t *testing.T) {
	broken := errors.New("broken pipe")
	r := io.MultiReader(strings.NewReader("a\npartial"), iotest.ErrReader(broken))
	got, err := readAll(r, 0)
	if !errors.Is(err, broken) {
		t.Errorf("final error %v, want %v", err, broken)
	}
	// A line cut by a failing stream is not trusted.
	want := []readResult{{"a", false}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
}

func TestLineReaderMemoryBounded(t *testing.T) {
	const max = 1000
	lines := NewLineReader(strings.NewReader(strings.Repeat("x", 10*readBufferSize)+"\nok\n"), max)
	if _, tooLong, err := lines.Next(); !tooLong || err != nil {
		t.Fatalf("Next() = tooLong %v, %v; want a too-long line", tooLong, err)
	}
	if got := cap(lines.line); got > max+readBufferSize {
		t.Errorf("line buffer grew to %d bytes, more than max plus the read buffer", got)
	}
	line, _, err := lines.Next()
	if string(line) != "ok" || err != nil {
		t.Errorf("Next() after a too-long line = %q, %v; want \"ok\"", line, err)
	}
}
