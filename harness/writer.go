package harness

import (
	"context"
	"io"
	"slices"

	"github.com/escouade-dev/escouade-plugin/internal/bqueue"
)

// stdinWriter writes lines to the agent's stdin from its own goroutine, so
// an agent that stops reading cannot block the session's loop (which must
// keep reading its stdout).
type stdinWriter struct {
	w    io.WriteCloser
	todo *bqueue.Queue[[]byte] // closed: close stdin once what it holds is written
	done chan struct{}
}

func newStdinWriter(w io.WriteCloser) *stdinWriter {
	sw := &stdinWriter{w: w, todo: bqueue.New[[]byte](0, bqueue.Refuse), done: make(chan struct{})}
	go sw.run()
	return sw
}

// send queues lines; each gets its newline. Lines sent after closeInput
// are dropped.
func (sw *stdinWriter) send(lines ...[]byte) {
	for _, l := range lines {
		if _, _, err := sw.todo.Push(l); err != nil {
			return // stdin is closing: nothing more goes to it
		}
	}
}

// closeInput closes stdin once what is queued is written.
func (sw *stdinWriter) closeInput() { sw.todo.Close() }

func (sw *stdinWriter) run() {
	defer close(sw.done)
	broken := false
	for {
		todo, err := sw.todo.PopAll(context.Background())
		if err != nil { // closed and written
			sw.w.Close()
			return
		}
		for _, l := range todo {
			if !broken {
				// A write fails once the agent is gone; its end is reported
				// by the process, not here.
				_, err := sw.w.Write(append(slices.Clip(l), '\n'))
				broken = err != nil
			}
		}
	}
}
