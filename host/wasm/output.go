package wasm

import (
	"bytes"
	"io"
	"os"
	"sync"
)

// output is an instance's stdout: the guest writes (wazero calls Write on
// the instance's goroutine), the host reads whole lines (Program.Stdout).
// Bytes after the last newline wait for it, so the host never sees half a
// line of a turn. A guest that writes more than max bytes the host has not
// read waits, its turn clock stopped: the host's bound on what it reads
// pushes back on the module as a pipe does on a process (PROTOCOL §3).
type output struct {
	mu      sync.Mutex
	cond    *sync.Cond
	lines   []byte // whole lines; lines[off:] not read yet
	off     int
	partial []byte // written after the last newline
	ended   bool   // the instance ended: Read gives EOF once lines are read
	closed  bool   // the host closed it: writes are dropped
	max     int
	clock   turnClock
}

func newOutput(max int, clock turnClock) *output {
	o := &output{max: max, clock: clock}
	o.cond = sync.NewCond(&o.mu)
	return o
}

// Write is fd_write on fd 1.
func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case o.ended:
		return 0, os.ErrClosed
	case o.closed:
		return len(p), nil
	}
	o.partial = append(o.partial, p...)
	if i := bytes.LastIndexByte(o.partial, '\n'); i >= 0 {
		o.push(o.partial[:i+1])
		o.partial = append(o.partial[:0], o.partial[i+1:]...)
	} else if len(o.partial) > o.max {
		// A line without end goes on as it comes: the host's reader
		// cuts it at its own limit and resyncs at the next newline.
		o.push(o.partial)
		o.partial = o.partial[:0]
	}
	if len(o.lines)-o.off >= o.max && !o.closed {
		o.waitRoom()
	}
	return len(p), nil
}

// waitRoom waits, the turn clock stopped, until the host has read below
// the bound. Called with o.mu held; the clock is told without it (see
// stdin.waitInput).
func (o *output) waitRoom() {
	o.mu.Unlock()
	o.clock.pause()
	o.mu.Lock()
	for len(o.lines)-o.off >= o.max && !o.closed && !o.ended {
		o.cond.Wait()
	}
	o.mu.Unlock()
	o.clock.resume()
	o.mu.Lock()
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
