package wasm

import (
	"bytes"
	"errors"
	"io"
	"os"
	"sync"
)

// output is an instance's stdout: the guest writes (wazero calls Write on
// the instance's goroutine), the host reads whole lines (Program.Stdout).
// Bytes after the last newline wait for it, so the host never sees half a
// line of a turn; past the protocol's line limit without a newline, the
// instance ends (tooLong). A guest that writes more than max bytes the
// host has not read waits, its turn clock running: the host's bound on
// what it reads pushes back on the module as a pipe does on a process
// (docs/protocol.md#3-messages), and a module that writes faster than the host reads
// spends its turn doing so.
type output struct {
	mu      sync.Mutex
	cond    *sync.Cond
	lines   []byte // whole lines; lines[off:] not read yet
	off     int
	partial []byte // written after the last newline
	ended   bool   // the instance ended: Read gives EOF once lines are read
	closed  bool   // the host closed it: writes are dropped
	max     int
	lineMax int    // the longest line, newline excluded
	tooLong func() // called, without mu, when a line runs past lineMax
}

func newOutput(max, lineMax int, tooLong func()) *output {
	o := &output{max: max, lineMax: lineMax, tooLong: tooLong}
	o.cond = sync.NewCond(&o.mu)
	return o
}

// errLineTooLong is the guest's write that ran a line past the limit.
var errLineTooLong = errors.New("line too long")

// Write is fd_write on fd 1.
func (o *output) Write(p []byte) (int, error) {
	n, err := o.write(p)
	if err == errLineTooLong {
		o.tooLong()
	}
	return n, err
}

func (o *output) write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case o.ended:
		return 0, os.ErrClosed
	case o.closed:
		return len(p), nil
	}
	// Only p is searched for a newline, so a line written a byte at a
	// time costs no more than written at once.
	before := len(o.partial)
	o.partial = append(o.partial, p...)
	if i := bytes.LastIndexByte(p, '\n'); i >= 0 {
		cut := before + i + 1
		o.push(o.partial[:cut])
		o.partial = append(o.partial[:0], o.partial[cut:]...)
	}
	if len(o.partial) > o.lineMax {
		o.partial = nil
		return 0, errLineTooLong
	}
	for len(o.lines)-o.off >= o.max && !o.closed && !o.ended {
		o.cond.Wait()
	}
	return len(p), nil
}

func (o *output) push(b []byte) {
	if o.off == len(o.lines) {
		o.lines, o.off = o.lines[:0], 0
	}
	o.lines = append(o.lines, b...)
	o.cond.Broadcast()
}

// Read gives the guest's lines; io.EOF once the instance ended and they
// are all read.
func (o *output) Read(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for o.off == len(o.lines) && !o.ended && !o.closed {
		o.cond.Wait()
	}
	if o.closed {
		return 0, os.ErrClosed
	}
	if o.off == len(o.lines) {
		return 0, io.EOF
	}
	n := copy(p, o.lines[o.off:])
	o.off += n
	o.cond.Broadcast() // room for a waiting guest
	return n, nil
}

// Close is the host's: it reads no more, and what the guest writes from
// now on is dropped.
func (o *output) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed = true
	o.lines, o.off = nil, 0
	o.cond.Broadcast()
	return nil
}

// end is the instance's: a last line without newline is handed on, then
// EOF.
func (o *output) end() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ended {
		return
	}
	if len(o.partial) > 0 && !o.closed {
		o.push(o.partial)
		o.partial = nil
	}
	o.ended = true
	o.cond.Broadcast()
}
