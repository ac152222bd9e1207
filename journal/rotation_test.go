package journal

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// numbered returns the lines "n 00", "n 01" … as written at stampTime
// under TagStderr, all of one length while count <= 100.
func numbered(count int) []string {
	lines := make([]string, count)
	for i := range lines {
		lines[i] = line(TagStderr, fmt.Sprintf("n %02d", i))
	}
	return lines
}

func writeAll(j *Journal, lines []string) {
	for _, l := range lines {
		j.Write(TagStderr, strings.TrimPrefix(l, stampText+" "+TagStderr+" "))
	}
}

func TestRotation(t *testing.T) {
	lineSize := int64(len(numbered(1)[0]) + 1)
	tests := []struct {
		name        string
		maxSize     int64
		count       int
		wantRotated []string
		wantCurrent []string
	}{
		{"under the limit", 10 * lineSize, 10, nil, numbered(10)},
		{"one past the limit", 10 * lineSize, 11, numbered(10), numbered(11)[10:]},
		{"older rotation replaced", 4 * lineSize, 10, numbered(8)[4:], numbered(10)[8:]},
		{"limit inside a line", 4*lineSize - 1, 5, numbered(5)[:3], numbered(5)[3:]},
		{"line longer than the limit", lineSize / 2, 2, numbered(1), numbered(2)[1:]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, home := openTest(t, Options{MaxSize: tt.maxSize}, hooks{})
			writeAll(j, numbered(tt.count))
			if err := j.Flush(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantRotated, fileLines(t, journalFile(home)+".1")); diff != "" {
				t.Errorf("%s.log.1 (-want +got):\n%s", testID, diff)
			}
			if diff := cmp.Diff(tt.wantCurrent, fileLines(t, journalFile(home))); diff != "" {
				t.Errorf("%s.log (-want +got):\n%s", testID, diff)
			}
		})
	}
}

func TestRotationOfAFileFullBeforeOpen(t *testing.T) {
	home := t.TempDir()
	path := Path(home, testID)
	if err := os.MkdirAll(filepath.Dir(path), dirMode); err != nil {
		t.Fatal(err)
	}
	old := strings.Repeat("x", 99) + "\n"
	if err := os.WriteFile(path, []byte(old), fileMode); err != nil {
		t.Fatal(err)
	}
	j, err := Open(home, testID, Options{MaxSize: 100, Now: fixedClock})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	j.Write(TagStart, "pid 42")
	want := []string{strings.Repeat("x", 99), line("start", "pid 42")}
	if diff := cmp.Diff(want, mustTail(t, j, 5)); diff != "" {
		t.Errorf("Tail (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want[1:], fileLines(t, path)); diff != "" {
		t.Errorf("new file (-want +got):\n%s", diff)
	}
}

func TestRotationFailureIsReportedAndWritingGoesOn(t *testing.T) {
	lineSize := int64(len(numbered(1)[0]) + 1)
	j, home := openTest(t, Options{MaxSize: 2 * lineSize}, hooks{})
	// A directory with something in it cannot be replaced by a rename.
	blocker := filepath.Join(journalFile(home)+".1", "keep")
	if err := os.MkdirAll(blocker, dirMode); err != nil {
		t.Fatal(err)
	}
	writeAll(j, numbered(3))
	err := j.Flush()
	if err == nil || !strings.HasPrefix(err.Error(), "journal: ") {
		t.Fatalf("Flush = %v, want a journal error", err)
	}
	if err := j.Flush(); err != nil {
		t.Errorf("second Flush = %v, want the error reported once", err)
	}
	if diff := cmp.Diff(numbered(3), fileLines(t, journalFile(home))); diff != "" {
		t.Errorf("%s.log (-want +got):\n%s", testID, diff)
	}
}

func TestTail(t *testing.T) {
	lineSize := int64(len(numbered(1)[0]) + 1)
	all := numbered(15) // files: .log.1 holds 5..9, .log holds 10..14
	tests := []struct {
		name string
		n    int
		want []string
	}{
		{"zero", 0, []string{}},
		{"negative", -3, []string{}},
		{"within the current file", 3, all[12:]},
		{"exactly the current file", 5, all[10:]},
		{"spanning both files", 7, all[8:]},
		{"more than both files hold", 500, all[5:]},
	}
	j, home := openTest(t, Options{MaxSize: 5 * lineSize}, hooks{})
	writeAll(j, all)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, mustTail(t, j, tt.n)); diff != "" {
				t.Errorf("Tail(%d) (-want +got):\n%s", tt.n, diff)
			}
			got, err := ReadTail(home, testID, tt.n)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ReadTail(%d) (-want +got):\n%s", tt.n, diff)
			}
		})
	}
}

func TestReadTailOfFiles(t *testing.T) {
	long := strings.Repeat("y", 3*tailChunk/2)
	tests := []struct {
		name    string
		rotated *string // nil: no file
		current *string
		n       int
		want    []string
	}{
		{"no journal yet", nil, nil, 10, []string{}},
		{"empty file", nil, ptr(""), 10, []string{}},
		{"last line cut short", nil, ptr("a\nb\nc"), 2, []string{"b", "c"}},
		{"rotated only", ptr("a\nb\n"), nil, 5, []string{"a", "b"}},
		{"empty lines kept", nil, ptr("a\n\n\nb\n"), 3, []string{"", "", "b"}},
		{"lines longer than a chunk", ptr(long + "\n" + long + "\n"), ptr(long + "\nz\n"), 3, []string{long, long, "z"}},
		{"many chunks of short lines", nil, ptr(strings.Repeat("0123456789\n", tailChunk/5)), 2, []string{"0123456789", "0123456789"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			writeFileIf(t, Path(home, testID)+".1", tt.rotated)
			writeFileIf(t, Path(home, testID), tt.current)
			got, err := ReadTail(home, testID, tt.n)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ReadTail(%d) (-want +got):\n%s", tt.n, diff)
			}
		})
	}
}

func ptr(s string) *string { return &s }

func writeFileIf(t *testing.T, path string, content *string) {
	t.Helper()
	if content == nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), dirMode); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(*content), fileMode); err != nil {
		t.Fatal(err)
	}
}

// FuzzLastLines checks the backward reader against reading the whole file.
func FuzzLastLines(f *testing.F) {
	f.Add("a\nb\nc\n", 2)
	f.Add("a\nb\nc", 5)
	f.Add("\n\n", 1)
	f.Add("", 0)
	f.Fuzz(func(t *testing.T, content string, n int) {
		if n < 0 || n > 1000 {
			return
		}
		path := filepath.Join(t.TempDir(), "x.log")
		if err := os.WriteFile(path, []byte(content), fileMode); err != nil {
			t.Fatal(err)
		}
		got, err := lastLines(path, n)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		if content != "" {
			all := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
			want = all[max(0, len(all)-n):]
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("lastLines(%q, %d) (-want +got):\n%s", content, n, diff)
		}
	})
}

// TestHugeLineKeepsHistory: one line of megabytes went alone into a fresh
// file, and the next rotation replaced <id>.log.1, and with it every line
// written before.
func TestHugeLineKeepsHistory(t *testing.T) {
	j, _ := openTest(t, Options{MaxSize: 200_000}, hooks{})
	writeAll(j, numbered(100))
	j.Write(TagStderr, strings.Repeat("z", 3_000_000))
	j.Write(TagStderr, "after")
	lines := mustTail(t, j, 500)
	if len(lines) != 102 || lines[0] != numbered(1)[0] || lines[101] != line(TagStderr, "after") {
		t.Fatalf("Tail kept %d lines, first %.40q", len(lines), lines[0])
	}
	if huge := lines[100]; len(huge) > DefaultMaxLine+100 || !strings.HasSuffix(huge, " … (2933464 bytes cut)") {
		t.Errorf("the huge line is %d bytes, ending %q", len(huge), huge[len(huge)-30:])
	}
}
