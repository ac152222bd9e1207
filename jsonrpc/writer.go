package jsonrpc

import (
	"errors"
	"io"
	"sync"
	"sync/atomic"
)

// ErrLineTooLong is the error of a call or notification whose line would
// pass Options.MaxWriteLine: it is not sent.
var ErrLineTooLong = errors.New("jsonrpc: the line would exceed the line limit")

// lineWriter writes whole lines under a mutex, so that messages from
// concurrent callers and handlers never interleave. Its buffer is reused
// from line to line.
type lineWriter struct {
	mu    sync.Mutex // held for a whole line, the write included
	w     io.Writer
	watch *writeWatch // bounds each write; nil without Options.WriteTimeout
	max   int         // the longest line, without its '\n'
	buf   []byte
	// closed is the error later writes get once writing must stop. It is
	// not under mu, so that closing never waits for a write blocked on a
	// peer that does not read.
	closed atomic.Pointer[error]
}

// fill appends the content of one line to buf.
type fill func(buf []byte) ([]byte, error)

// writeLine builds one line with fill and writes it whole. An encoding
// error, or a line past the limit (ErrLineTooLong), leaves the stream
// untouched; a write error is returned as is and the caller tears the
// connection down.
func (lw *lineWriter) writeLine(content fill) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if closed := lw.closed.Load(); closed != nil {
		return *closed
	}
	buf, err := content(lw.buf[:0])
	if err == nil && len(buf) > lw.max {
		err = ErrLineTooLong
	}
	if err == nil {
		buf = append(buf, '\n')
		_, err = lw.write(buf)
	}
	if cap(buf) <= keepLineCap {
		lw.buf = buf[:0]
	} else {
		lw.buf = nil
	}
	return err
}

// write writes one line, watched when there is a timeout: a line the
// peer has not taken within it (writewatch.go) fails with the watch's
// error; lw.mu is held.
func (lw *lineWriter) write(line []byte) (int, error) {
	if lw.watch == nil {
		return lw.w.Write(line)
	}
	lw.watch.begin()
	n, err := lw.w.Write(line)
	lw.watch.end()
	if stuck := lw.watch.failure(); err != nil && stuck != nil {
		err = stuck
	}
	return n, err
}

// close makes later writes fail with err; a write under way goes on.
func (lw *lineWriter) close(err error) {
	lw.closed.CompareAndSwap(nil, &err)
}

// writeMessage writes one message on its own line.
func (lw *lineWriter) writeMessage(m *Message) error {
	return lw.writeLine(func(buf []byte) ([]byte, error) {
		return appendMessage(buf, m)
	})
}

// writeArray writes messages as one batch line.
func (lw *lineWriter) writeArray(msgs []Message) error {
	return lw.writeLine(func(buf []byte) ([]byte, error) {
		return appendArray(buf, msgs)
	})
}

// appendArray appends messages as a JSON array.
func appendArray(buf []byte, msgs []Message) ([]byte, error) {
	buf = append(buf, '[')
	for i := range msgs {
		if i > 0 {
			buf = append(buf, ',')
		}
		var err error
		if buf, err = appendMessage(buf, &msgs[i]); err != nil {
			return nil, err
		}
	}
	return append(buf, ']'), nil
}

// answerSize is the size of an answer once written, or a little more: a
// raw result spread over lines is compacted when written.
func answerSize(m *Message) int {
	const head = len(`{"jsonrpc":"2.0","id":`)
	n := head + len(m.ID.Raw())
	if m.Error == nil {
		return n + len(`,"result":}`) + max(len(m.Result), len(nullJSON))
	}
	errPart, _ := appendErrorMember(nil, m.Error)
	return n + len(errPart)
}
