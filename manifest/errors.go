package manifest

import (
	"strings"

	"github.com/escouade-dev/escouade-plugin/internal/safetext"
)

// Problem is one reason a manifest is refused.
type Problem struct {
	// Pointer is the JSON pointer of the faulty value, such as
	// /permissions/secrets/1; empty for the whole document.
	Pointer string
	// Message says what is wrong, in a short English sentence.
	Message string
	// Fix says what to change; empty when there is nothing better to say
	// than the message.
	Fix string
}

// String formats p as "<pointer>: <message> (fix: <fix>)", leaving out the
// pointer of the whole document and an empty fix. Unsafe characters (a
// pointer names keys as written) are escaped so the problem stays on one
// line.
func (p Problem) String() string {
	var b strings.Builder
	if p.Pointer != "" {
		b.WriteString(p.Pointer)
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	if p.Fix != "" {
		b.WriteString(" (fix: ")
		b.WriteString(p.Fix)
		b.WriteString(")")
	}
	return printable(b.String())
}

// printable escapes what internal/safetext calls unsafe in s, so that a
// problem stays one line that reads as written.
func printable(s string) string { return safetext.Line(s) }

// Error is a manifest refused, with every problem found.
type Error struct {
	// File is the manifest's path, or FileName for bytes given to Parse.
	File     string
	Problems []Problem

	cause error // the I/O error behind a file that could not be read
}

// Error returns one line per problem: "<file>: <pointer>: <message> (fix: <fix>)".
func (e *Error) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = printable(e.File) + ": " + p.String()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the I/O error that kept the file from being read, if any,
// so that errors.Is(err, fs.ErrNotExist) works.
func (e *Error) Unwrap() error { return e.cause }
