package journal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// stampTime is the time every test line carries, given in Paris time so
// that a missing conversion to UTC shows.
var stampTime = time.Date(2026, 11, 30, 16, 4, 5, 123_456_789, time.FixedZone("CET", 3600))

const stampText = "2026-11-30T15:04:05.123Z"

func fixedClock() time.Time { return stampTime }

// openTest opens the journal of plugin "dev.example.test" in a fresh home.
func openTest(t *testing.T, opts Options, h hooks) (j *Journal, home string) {
	t.Helper()
	home = t.TempDir()
	if opts.Now == nil {
		opts.Now = fixedClock
	}
	j, err := open(home, testID, opts, h)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { j.Close() })
	return j, home
}

const testID = "dev.example.test"

// line is what a line written at stampTime looks like.
func line(tag, text string) string {
	return stampText + " " + tag + " " + text
}

func mustTail(t *testing.T, j *Journal, n int) []string {
	t.Helper()
	lines, err := j.Tail(n)
	if err != nil {
		t.Fatalf("Tail(%d): %v", n, err)
	}
	return lines
}

// fileLines reads a journal file whole, for checking what Tail does not.
func fileLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

func journalFile(home string) string {
	return filepath.Join(home, "plugin-logs", testID+".log")
}
