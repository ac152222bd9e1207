package journal

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// tailChunk is how much of a file Tail reads at a time, from its end.
const tailChunk = 64 << 10

// Tail returns the last n lines of the journal, oldest first, reading
// <id>.log.1 when <id>.log holds fewer. Lines still queued are written
// first. It returns an empty slice, never nil, when there are none.
func (j *Journal) Tail(n int) ([]string, error) {
	if err := j.Flush(); err != nil {
		return nil, err
	}
	j.out.mu.Lock()
	defer j.out.mu.Unlock()
	return readTail(j.path, n)
}

// ReadTail is Tail for a journal no Journal has open (the CLI's
// `journal ID -n N`). A journal being rotated by another process while it
// reads may come back short.
func ReadTail(home, id string, n int) ([]string, error) {
	if err := checkID(id); err != nil {
		return nil, err
	}
	return readTail(Path(home, id), n)
}

func readTail(path string, n int) ([]string, error) {
	lines := []string{}
	if n <= 0 {
		return lines, nil
	}
	current, err := lastLines(path, n)
	if err != nil {
		return nil, err
	}
	if len(current) < n {
		older, err := lastLines(rotatedPath(path), n-len(current))
		if err != nil {
			return nil, err
		}
		lines = append(lines, older...)
	}
	return append(lines, current...), nil
}

// lastLines returns the last n lines of the file at path, reading it
// backwards so that a large file costs only its end. A missing file has no
// lines; a last line without its "\n" (a write cut short) still counts.
func lastLines(path string, n int) ([]string, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	defer f.Close()
	data, err := readEnd(f, n)
	if err != nil || len(data) == 0 {
		return nil, err
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	return lines[max(0, len(lines)-n):], nil
}

// readEnd reads f backwards until it holds more than n line breaks (so the
// first, maybe partial, line can be left out) or reaches the start.
func readEnd(f *os.File, n int) ([]byte, error) {
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	var data []byte
	breaks := 0
	for off := info.Size(); off > 0 && breaks <= n; {
		step := min(tailChunk, off)
		off -= step
		chunk := make([]byte, step, int(step)+len(data))
		if _, err := f.ReadAt(chunk, off); err != nil {
			return nil, fmt.Errorf("journal: %w", err)
		}
		breaks += bytes.Count(chunk, []byte{'\n'})
		data = append(chunk, data...)
	}
	return data, nil
}
