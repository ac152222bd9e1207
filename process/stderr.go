package process

import (
	"bufio"
	"bytes"
	"io"
	"unicode/utf8"

	"github.com/escouade-dev/escouade-plugin/transport"
)

// lineEndRoom lets the scanner see a "\r\n" right after a line of exactly
// StderrChunkBytes, so such a line is not followed by a spurious empty one.
const lineEndRoom = len("\r\n")

// readStderr hands each line of r to keep and to deliver, in order, until r
// ends or is closed.
func readStderr(r io.Reader, keep *transport.LastLines, deliver func(string)) {
	scanner := bufio.NewScanner(r)
	scanner.Buffer(make([]byte, 0, 4096), StderrChunkBytes+lineEndRoom)
	scanner.Split(splitLines(StderrChunkBytes))
	for scanner.Scan() {
		line := scanner.Text()
		keep.Add(line)
		if deliver != nil {
			deliver(line)
		}
	}
}

// splitLines returns a bufio.SplitFunc for stderr: lines without "\n" or
// "\r\n"; a line longer than maxLine cut into chunks of at most maxLine
// bytes (before a rune rather than through it, so the journal gets whole
// characters); a last line without a newline kept. The scanner's buffer
// must hold maxLine+lineEndRoom bytes.
func splitLines(maxLine int) bufio.SplitFunc {
	return func(data []byte, atEOF bool) (advance int, token []byte, err error) {
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			if line := bytes.TrimSuffix(data[:i], []byte{'\r'}); len(line) <= maxLine {
				return i + 1, line, nil
			}
		}
		if len(data) > maxLine {
			cut := chunkCut(data, maxLine)
			return cut, data[:cut], nil
		}
		if atEOF && len(data) > 0 {
			return len(data), data, nil
		}
		return 0, nil, nil
	}
}

// chunkCut returns where to end a chunk of data, at most limit bytes long
// (data holds more): before the rune that the limit would split, or at the
// limit when the bytes there are not UTF-8.
func chunkCut(data []byte, limit int) int {
	for cut := limit; cut > limit-utf8.UTFMax && cut > 0; cut-- {
		if utf8.RuneStart(data[cut]) {
			return cut
		}
	}
	return limit
}
