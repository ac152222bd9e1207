package journal

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"
)

// warnedFolders holds the journal folders (with the writer told) whose
// warning was written, so that a home with fifty plugins says it once.
var warnedFolders sync.Map

type warnKey struct {
	folder string
	w      io.Writer
}

// unwritableTo is what the output of plugin id's journal in folder does
// with lines its file cannot take: it writes them to w (nil: stderr) as
// "<id> <line>", after the folder's warning, once per folder and writer.
func unwritableTo(w io.Writer, id, folder string) func(lines []string, why error) {
	if w == nil {
		w = os.Stderr
	}
	return func(lines []string, why error) {
		if _, said := warnedFolders.LoadOrStore(warnKey{folder, w}, true); !said {
			fmt.Fprintln(w, unwritableWarning(folder, why))
		}
		var b strings.Builder
		for _, line := range lines {
			b.WriteString(id + " " + line + "\n")
		}
		_, _ = io.WriteString(w, b.String())
	}
}

// unwritableWarning is the one line said of a folder the journals cannot
// be written in: which, why, what goes on, and the fix.
func unwritableWarning(folder string, why error) string {
	return fmt.Sprintf("escouade: the plugins' journals cannot be written in %s (%s): plugins run and their journal lines go to stderr; make that folder writable, or give a writable home (--home, ESCOUADE_HOME)",
		folder, reasonOf(why))
}

// reasonOf is the system's reason of err, without the path it names.
func reasonOf(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return strings.TrimPrefix(err.Error(), "journal: ")
}
