package journal

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// output is the journal file with its rotation. The writer goroutine is
// the only one writing; mu keeps Tail from reading between a rename and
// the write that follows it.
type output struct {
	path    string
	maxSize int64
	// unwritable takes the lines while the file cannot be opened (a
	// read-only or full home, a folder of another user's), so that a
	// plugin still runs and its lines are not lost; nil: they are lost.
	unwritable func(lines []string, why error)

	mu   sync.Mutex
	file *os.File // nil after a failed open; the next batch tries again
	size int64
}

// errNotOpen reports lines lost because rotation could not open a new file.
var errNotOpen = errors.New("journal: the journal file could not be opened again after rotation")

// rotatedPath is where a full journal file goes.
func rotatedPath(path string) string {
	return path + ".1"
}

func (o *output) open() error {
	if err := os.MkdirAll(filepath.Dir(o.path), dirMode); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	f, err := os.OpenFile(o.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, fileMode)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("journal: %w", err)
	}
	o.file, o.size = f, info.Size()
	return nil
}

// write appends lines, each ended by "\n", rotating the file before a line
// that would take it past maxSize. It returns the first error met and goes
// on with the next lines.
func (o *output) write(lines []string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.file == nil {
		if err := o.open(); err != nil {
			return o.elsewhere(lines, err)
		}
	}
	var chunk []byte
	var first error
	for _, line := range lines {
		n := int64(len(line) + 1)
		if pending := o.size + int64(len(chunk)); pending > 0 && pending+n > o.maxSize {
			first = cmp.Or(first, o.flush(chunk))
			chunk = chunk[:0]
			if o.size > 0 { // a file that holds nothing is not rotated over the history
				first = cmp.Or(first, o.rotate())
			}
		}
		chunk = append(append(chunk, line...), '\n')
	}
	return cmp.Or(first, o.flush(chunk))
}

func (o *output) flush(chunk []byte) error {
	if len(chunk) == 0 {
		return nil
	}
	if o.file == nil {
		return o.elsewhere(strings.Split(strings.TrimSuffix(string(chunk), "\n"), "\n"), errNotOpen)
	}
	// Only what was written counts: on a full disk the file does not grow,
	// and is not rotated over <id>.log.1 as if it had.
	n, err := o.file.Write(chunk)
	o.size += int64(n)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// elsewhere hands lines the file cannot take to o.unwritable; without
// one, they are lost and why is the error.
func (o *output) elsewhere(lines []string, why error) error {
	if o.unwritable == nil {
		return why
	}
	o.unwritable(lines, why)
	return nil
}

// rotate renames the file to <path>.1, replacing an older one, and starts
// a new file.
func (o *output) rotate() error {
	closeErr := o.close()
	renameErr := os.Rename(o.path, rotatedPath(o.path))
	if renameErr != nil {
		renameErr = fmt.Errorf("journal: %w", renameErr)
	}
	return cmp.Or(closeErr, renameErr, o.open())
}

func (o *output) close() error {
	if o.file == nil {
		return nil
	}
	err := o.file.Close()
	o.file = nil
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}
