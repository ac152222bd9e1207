package harness

import (
	"bufio"
	"errors"
	"io"
)

// readChunk is the reader's buffer: lines longer than it are gathered in
// pieces, so memory follows the line actually written.
const readChunk = 64 << 10

// line is one line of the agent's stdout, or the size of one that was too
// long and dropped.
type line struct {
	data    []byte
	dropped int
}

// readLines sends each line of r, without its end, until r ends. A line
// over max bytes is dropped whole and reported by its size.
func readLines(r io.Reader, max int, out chan<- line) {
	br := bufio.NewReaderSize(r, readChunk)
	for {
		data, dropped, err := readLine(br, max)
		if len(data) > 0 || dropped > 0 {
			out <- line{data: data, dropped: dropped}
		}
		if err != nil {
			return
		}
	}
}

func readLine(br *bufio.Reader, max int) (data []byte, dropped int, err error) {
	size := 0
	for {
		piece, err := br.ReadSlice('\n')
		size += len(piece)
		if size <= max {
			data = append(data, piece...)
		} else {
			data = nil
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if size > max {
			return nil, size, err
		}
		return data, 0, err
	}
}
