package jsonrpc

import (
	"bufio"
	"errors"
	"io"
	"os"

	"github.com/escouade-dev/escouade-plugin/vocab"
)

// Limits of line reading.
const (
	// DefaultMaxLine is the longest line accepted when none is set: the
	// protocol's (docs/protocol.md#numbers).
	DefaultMaxLine = vocab.LimitMaxLineBytes
	// ExcerptLen is how much of a bad or over-long line is kept for the
	// journal.
	ExcerptLen = vocab.LimitExcerptBytes
	// readBufferSize is the size of the reader's own buffer; a line that
	// fits in it is returned without being copied.
	readBufferSize = 64 << 10
	// keepLineCap is the largest line buffer kept between lines: a rare
	// long line does not pin its memory for the life of the reader.
	keepLineCap = 1 << 20
)

// LineReader cuts a stream into '\n'-ended lines of bounded length. It
// never holds more than the longest line plus its read buffer.
type LineReader struct {
	in        *bufio.Reader
	max       int
	line      []byte // the line being assembled when it spans reads
	truncated bool   // line lost bytes past what it can hold
	resume    bool   // a read deadline cut the line short: go on with it
}

// NewLineReader returns a reader of lines of at most max bytes, not counting
// the "\n" or "\r\n" that ends them; max <= 0 means DefaultMaxLine.
func NewLineReader(r io.Reader, max int) *LineReader {
	return newLineReaderSize(r, max, readBufferSize)
}

// newLineReaderSize is NewLineReader with a read buffer of bufSize bytes,
// which tests make small to exercise lines spanning reads.
func newLineReaderSize(r io.Reader, max, bufSize int) *LineReader {
	if max <= 0 {
		max = DefaultMaxLine
	}
	return &LineReader{in: bufio.NewReaderSize(r, bufSize), max: max}
}

// Next returns the next non-blank line, without its "\n" or "\r\n". A line
// longer than max is skipped up to its newline and returned with
// tooLong=true, line holding its first ExcerptLen bytes; the lines after it
// are read as usual. At the end of the stream a last line without '\n' is
// returned first, then err is io.EOF; a read error is returned as is. A
// read deadline (os.ErrDeadlineExceeded) loses nothing: the line under
// way goes on at the next call.
//
// The returned slice is only valid until the next call to Next, which may
// reuse its memory.
func (r *LineReader) Next() (line []byte, tooLong bool, err error) {
	for {
		line, tooLong, err = r.readLine()
		if err != nil || tooLong || !isBlank(line) {
			return line, tooLong, err
		}
	}
}

// readLine returns the next line, blank or not.
func (r *LineReader) readLine() (line []byte, tooLong bool, err error) {
	if !r.resume {
		if cap(r.line) > keepLineCap {
			r.line = nil
		}
		r.line, r.truncated = r.line[:0], false
	}
	r.resume = false
	for {
		chunk, err := r.in.ReadSlice('\n')
		if err == nil && len(r.line) == 0 {
			return r.finish(chunk[:len(chunk)-1])
		}
		if err == nil {
			return r.finish(r.appendCapped(chunk[:len(chunk)-1]))
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			r.appendCapped(chunk)
			r.resume = true
			return nil, false, err
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return r.atEnd(r.appendCapped(chunk), err)
		}
		r.appendCapped(chunk)
	}
}

// appendCapped adds a piece of the current line. It keeps one byte past
// max for a '\r' that may end the line and one more to know the line is too
// long, or the excerpt of a too-long line if that is more.
func (r *LineReader) appendCapped(piece []byte) []byte {
	room := max(r.max+2, ExcerptLen) - len(r.line)
	kept := min(max(room, 0), len(piece))
	r.line = append(r.line, piece[:kept]...)
	r.truncated = r.truncated || kept < len(piece)
	return r.line
}

// finish strips the '\r' of a "\r\n" ending and judges the length.
func (r *LineReader) finish(line []byte) ([]byte, bool, error) {
	if n := len(line); n > 0 && line[n-1] == '\r' && !r.truncated {
		line = line[:n-1]
	}
	if r.truncated || len(line) > r.max {
		return line[:min(ExcerptLen, len(line))], true, nil
	}
	return line, false, nil
}

// atEnd returns the unterminated last line, if any, before the error.
func (r *LineReader) atEnd(line []byte, err error) ([]byte, bool, error) {
	if len(line) == 0 || !errors.Is(err, io.EOF) {
		return nil, false, err
	}
	return r.finish(line)
}

// isBlank reports whether a line holds only spaces, tabs and '\r'.
func isBlank(line []byte) bool {
	return len(trimSpace(line)) == 0
}
