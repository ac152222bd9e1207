package harness

import (
	"io"
	"slices"
	"sync"
)

// stdinWriter writes lines to the agent's stdin from its own goroutine, so
// an agent that stops reading cannot block the session's loop (which must
// keep reading its stdout).
type stdinWriter struct {
	w    io.WriteCloser
	mu   sync.Mutex
	wake chan struct{}
	todo [][]byte
	eof  bool // close stdin once todo is written
	done chan struct{}
}

func newStdinWriter(w io.WriteCloser) *stdinWriter {
	sw := &stdinWriter{w: w, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go sw.run()
	return sw
}

// send queues lines; each gets its newline.
func (sw *stdinWriter) send(lines ...[]byte) {
	sw.mu.Lock()
	if !sw.eof {
		sw.todo = append(sw.todo, lines...)
	}
	sw.mu.Unlock()
	sw.signal()
}

// closeInput closes stdin once what is queued is written.
func (sw *stdinWriter) closeInput() {
	sw.mu.Lock()
	sw.eof = true
	sw.mu.Unlock()
	sw.signal()
}

func (sw *stdinWriter) signal() {
	select {
	case sw.wake <- struct{}{}:
	default:
	}
}

func (sw *stdinWriter) run() {
	defer close(sw.done)
	broken := false
	for range sw.wake {
		sw.mu.Lock()
		todo, eof := sw.todo, sw.eof
		sw.todo = nil
		sw.mu.Unlock()
		for _, l := range todo {
			if !broken {
				// A write fails once the agent is gone; its end is reported
				// by the process, not here.
				_, err := sw.w.Write(append(slices.Clip(l), '\n'))
				broken = err != nil
			}
		}
		if eof {
			sw.w.Close()
			return
		}
	}
}
