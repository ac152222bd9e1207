package wasm

import (
	"bytes"
	"sync"
	"unicode/utf8"
)

// nextLine finds the first line of data, as the stderr splitter sees it:
// without its "\n" or "\r\n"; a line longer than max cut in pieces of at
// most max bytes, before a rune rather than through it; what is left
// without newline a line only atEOF. advance 0 means more data is needed.
func nextLine(data []byte, atEOF bool, max int) (advance int, line []byte) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		if l := bytes.TrimSuffix(data[:i], []byte{'\r'}); len(l) <= max {
			return i + 1, l
		}
	}
	if len(data) > max {
		cut := runeCut(data, max)
		return cut, data[:cut]
	}
	if atEOF && len(data) > 0 {
		return len(data), data
	}
	return 0, nil
}

// runeCut returns where to end a piece of data of at most limit bytes
// (data holds more): before the rune the limit would split, or at the
// limit when the bytes there are not UTF-8.
func runeCut(data []byte, limit int) int {
	for cut := limit; cut > limit-utf8.UTFMax && cut > 0; cut-- {
		if utf8.RuneStart(data[cut]) {
			return cut
		}
	}
	return limit
}

// lineWriter is an instance's stderr: it hands each line written to emit,
// on the writer's goroutine, in order.
type lineWriter struct {
	mu   sync.Mutex
	buf  []byte
	max  int
	emit func(line string)
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	w.drain(false)
	return len(p), nil
}

// flush hands on a last line without newline.
func (w *lineWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.drain(true)
}

func (w *lineWriter) drain(atEOF bool) {
	start := 0
	for {
		n, line := nextLine(w.buf[start:], atEOF, w.max)
		if n == 0 {
			break
		}
		start += n
		w.emit(string(line))
	}
	w.buf = append(w.buf[:0], w.buf[start:]...)
}
