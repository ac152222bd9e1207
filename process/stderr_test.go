package process

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/escouade-dev/escouade-plugin/transport"
	"github.com/google/go-cmp/cmp"
)

// scanLines splits input the way readStderr does, with lines of at most
// maxLine bytes.
func scanLines(input []byte, maxLine int) ([]string, error) {
	scanner := bufio.NewScanner(bytes.NewReader(input))
	scanner.Buffer(make([]byte, 0, 16), maxLine+lineEndRoom)
	scanner.Split(splitLines(maxLine))
	var lines []string
	for scanner.Scan() {
		lines = append(lines, scanner.Text())
	}
	return lines, scanner.Err()
}

func TestSplitLines(t *testing.T) {
	const maxLine = 4
	tests := []struct {
		name  string
		input string
		want  []string
	}{
		{"lines", "a\nb\n", []string{"a", "b"}},
		{"crlf", "a\r\nb\r\n", []string{"a", "b"}},
		{"last line without newline", "a\nb", []string{"a", "b"}},
		{"empty lines", "\n\n", []string{"", ""}},
		{"nothing", "", nil},
		{"lone cr kept", "a\rb\n", []string{"a\rb"}},
		{"only one cr dropped", "a\r\r\n", []string{"a\r"}},
		{"line of exactly max", "abcd\nef\n", []string{"abcd", "ef"}},
		{"line of exactly max with crlf", "abcd\r\nef", []string{"abcd", "ef"}},
		{"long line cut", "abcdefghij\nk\n", []string{"abcd", "efgh", "ij", "k"}},
		{"long line without newline", "abcdefghij", []string{"abcd", "efgh", "ij"}},
		{"cut before a rune", "abcé\n", []string{"abc", "é"}},
		{"cut before a 4-byte rune", "a😀b\n", []string{"a", "😀", "b"}},
		{"cut through bytes that are not UTF-8", "\x80\x80\x80\x80\x80\x80", []string{"\x80\x80\x80\x80", "\x80\x80"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := scanLines([]byte(tt.input), maxLine)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("lines of %q (-want +got):\n%s", tt.input, diff)
			}
		})
	}
}

func FuzzSplitLines(f *testing.F) {
	for _, seed := range []string{"a\nb", "abcdefgh\r\n", "é😀x\r\r\n\n", "\x80\xff\n"} {
		f.Add([]byte(seed), 4)
	}
	f.Fuzz(func(t *testing.T, input []byte, maxLine int) {
		maxLine = 1 + abs(maxLine)%64
		lines, err := scanLines(input, maxLine)
		if err != nil {
			t.Fatalf("scan: %v", err)
		}
		for _, line := range lines {
			if len(line) > maxLine || strings.Contains(line, "\n") {
				t.Fatalf("line %q: longer than %d or holding a newline", line, maxLine)
			}
			if maxLine >= utf8.UTFMax && utf8.Valid(input) && !utf8.ValidString(line) {
				t.Fatalf("line %q of valid UTF-8 split a rune", line)
			}
		}
		// Nothing is lost but line endings.
		want := strings.ReplaceAll(strings.ReplaceAll(string(input), "\r\n", ""), "\n", "")
		if got := strings.Join(lines, ""); got != want {
			t.Fatalf("lines %q do not add up to %q", lines, want)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func TestLastLines(t *testing.T) {
	tests := []struct {
		added int
		want  []string
	}{
		{0, []string{}},
		{1, []string{"1"}},
		{3, []string{"1", "2", "3"}},
		{4, []string{"2", "3", "4"}},
		{7, []string{"5", "6", "7"}},
	}
	for _, tt := range tests {
		kept := transport.NewLastLines(3)
		for i := 1; i <= tt.added; i++ {
			kept.Add(strconv.Itoa(i))
		}
		if diff := cmp.Diff(tt.want, kept.Snapshot()); diff != "" {
			t.Errorf("after %d lines (-want +got):\n%s", tt.added, diff)
		}
	}
}

func TestStderrFlood(t *testing.T) {
	const total = 10 << 20
	var count, size int
	var last string
	spec := fakeSpec(t, "flood", strconv.Itoa(total))
	spec.Stderr = func(line string) { // one goroutine calls it: no lock needed
		count++
		size += len(line) + 1
		last = line
	}
	p := start(t, spec)
	waitClosed(t, p.Done(), "exit")
	stop(t, p, t.Context(), 0) // waits for the stderr reader
	n := total / floodLineBytes
	if count != n || size != n*floodLineBytes {
		t.Errorf("got %d lines, %d bytes; want %d lines, %d bytes", count, size, n, n*floodLineBytes)
	}
	if want := strings.TrimSuffix(floodLine(n-1), "\n"); last != want {
		t.Errorf("last line %q, want %q", last, want)
	}
	kept := p.LastStderr()
	if len(kept) != DefaultStderrKeep || kept[len(kept)-1] != last {
		t.Errorf("LastStderr holds %d lines ending %q; want %d ending %q", len(kept), kept[len(kept)-1], DefaultStderrKeep, last)
	}
}

func TestStderrLongLineIsCut(t *testing.T) {
	const size = 1 << 20
	var log lineLog
	spec := fakeSpec(t, "long-line", strconv.Itoa(size))
	spec.Stderr = log.add
	p := start(t, spec)
	waitClosed(t, p.Done(), "exit")
	var want []string
	for range size / StderrChunkBytes {
		want = append(want, strings.Repeat("x", StderrChunkBytes))
	}
	if diff := cmp.Diff(want, log.all()); diff != "" {
		t.Errorf("chunks (-want +got):\n%s", diff)
	}
}
