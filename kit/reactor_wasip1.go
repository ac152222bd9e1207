package kit

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"syscall"
	_ "unsafe" // for go:linkname
)

// moduleBuild is true in a module: the host keeps its timers.
const moduleBuild = true

// mainMain is the program's main function. A module built with
// -buildmode=c-shared runs package initialisation in _initialize but never
// main: runtime.main pauses back to the host instead. The first turn runs
// main on a goroutine of its own, so a plugin's main is the same in both
// builds: kit.New, Handle…, Run.
//
//go:linkname mainMain main.main
func mainMain()

// theReactor is the module's one connection to the host.
var theReactor = newReactor()

// escouadeTurn is one turn (docs/protocol.md#turns): the host appended whole
// lines to stdin, calls it, and collects what it wrote to stdout when it
// returns.
//
//go:wasmexport escouade-turn
func escouadeTurn() {
	theReactor.turn()
}

// run serves the host turn by turn.
func (p *Plugin) run() error {
	theReactor.plugin.Store(p)
	return p.Serve(context.Background(), theReactor.in, theReactor.out)
}

// inputChunk is how much of stdin one read takes.
const inputChunk = 64 << 10

// reactor drives the plugin in turns. The Go runtime of a module runs only
// while the host is inside one of its exports, and a wasmexport function
// runs on one goroutine: other goroutines run only while it waits. A turn
// therefore hands the host's lines to Serve's reader, then yields until no
// goroutine can run (each handler has returned or waits on an answer of
// the host, which comes in a later turn), and writes what they wrote. It
// never blocks: blocking with no goroutine runnable would be a deadlock
// the runtime ends the instance for.
type reactor struct {
	in      *turnInput
	out     *turnOutput
	started bool
	ended   atomic.Bool // main returned
	buf     []byte
	plugin  atomic.Pointer[Plugin] // the plugin Run serves, once it does
}

func newReactor() *reactor {
	return &reactor{in: newTurnInput(), out: &turnOutput{}, buf: make([]byte, inputChunk)}
}

func (r *reactor) turn() {
	if !r.started {
		r.started = true
		go r.runMain()
	}
	r.readInput()
	settle()
	if p := r.plugin.Load(); p != nil {
		p.noteBlocked()
	}
	r.flush()
	if r.ended.Load() {
		// main returned, as a process's does after shutdown: the module
		// exits once what it wrote is out.
		os.Exit(0)
	}
}

// runMain runs the plugin's main. A main that returns ends the module at
// the end of the turn; one that calls os.Exit ends it at once.
func (r *reactor) runMain() {
	mainMain()
	r.ended.Store(true)
}

// readInput moves every byte the host appended to stdin to Serve's reader.
// Reads of fd 0 never block: an empty buffer reads 0 bytes or EAGAIN.
// Another error ends the input, as the end of stdin ends a process's.
func (r *reactor) readInput() {
	if r.in.ended() {
		return
	}
	for {
		n, err := syscall.Read(0, r.buf)
		if n > 0 {
			r.in.add(r.buf[:n])
		}
		switch {
		case err == syscall.EINTR:
		case err == syscall.EAGAIN, err == nil && n == 0:
			return
		case err != nil:
			fmt.Fprintf(os.Stderr, "kit: stdin: %v: reading no more\n", err)
			r.in.end()
			return
		}
	}
}

// flush writes what the plugin wrote during the turn to stdout. Nothing
// else runs meanwhile: a module has one thread, and a write does not
// yield.
func (r *reactor) flush() {
	r.out.mu.Lock()
	defer r.out.mu.Unlock()
	data := r.out.buf
	for len(data) > 0 {
		n, err := syscall.Write(1, data)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			fmt.Fprintf(os.Stderr, "kit: stdout: %d bytes not written: %v\n", len(data), err)
			break
		}
		data = data[n:]
	}
	r.out.buf = r.out.buf[:0]
	if cap(r.out.buf) > keptOutput {
		r.out.buf = nil // a large answer does not hold its memory for ever
	}
}

// keptOutput is how much of the output buffer a turn keeps for the next.
const keptOutput = 1 << 20

// runnable reads how many goroutines wait for the processor.
var runnable = []metrics.Sample{{Name: "/sched/goroutines/runnable:goroutines"}}

func init() {
	metrics.Read(runnable)
	if runnable[0].Value.Kind() != metrics.KindUint64 {
		panic("kit: this Go runtime has no " + runnable[0].Name + " metric; build the module with Go 1.26 or later")
	}
}

// settle lets every other goroutine run until none can: each yield runs
// the goroutines waiting for the processor, which run until they block
// (a module has no preemption), and those may wake others. A goroutine
// waiting on a Go timer is not runnable, so settle does not wait for it.
func settle() {
	for {
		runtime.Gosched()
		metrics.Read(runnable)
		if runnable[0].Value.Uint64() == 0 {
			return
		}
	}
}

// turnInput is Serve's stdin in a module: the turns add what the host
// appended, and Serve's reader waits for it between turns.
type turnInput struct {
	mu    sync.Mutex
	buf   []byte
	done  bool
	ready chan struct{} // has a value when buf has bytes or done is set
}

func newTurnInput() *turnInput {
	return &turnInput{ready: make(chan struct{}, 1)}
}

// add appends b, which the next Read returns.
func (in *turnInput) add(b []byte) {
	in.mu.Lock()
	in.buf = append(in.buf, b...)
	in.mu.Unlock()
	in.wake()
}

// end makes Read return io.EOF once the bytes added are read.
func (in *turnInput) end() {
	in.mu.Lock()
	in.done = true
	in.mu.Unlock()
	in.wake()
}

// stopReading makes Read return io.EOF at once: Serve stops taking work.
func (in *turnInput) stopReading() {
	in.mu.Lock()
	in.buf = nil
	in.done = true
	in.mu.Unlock()
	in.wake()
}

func (in *turnInput) ended() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.done
}

func (in *turnInput) wake() {
	select {
	case in.ready <- struct{}{}:
	default:
	}
}

// Read waits until bytes were added, then returns as many as fit.
func (in *turnInput) Read(p []byte) (int, error) {
	for {
		in.mu.Lock()
		if len(in.buf) > 0 {
			n := copy(p, in.buf)
			in.buf = in.buf[n:]
			if len(in.buf) == 0 {
				in.buf = nil // let the turn's bytes go
			}
			in.mu.Unlock()
			return n, nil
		}
		done := in.done
		in.mu.Unlock()
		if done {
			return 0, io.EOF
		}
		<-in.ready
	}
}

// turnOutput is Serve's stdout in a module: what the plugin writes during
// a turn, written out when the turn ends.
type turnOutput struct {
	mu  sync.Mutex
	buf []byte
}

func (out *turnOutput) Write(p []byte) (int, error) {
	out.mu.Lock()
	defer out.mu.Unlock()
	out.buf = append(out.buf, p...)
	return len(p), nil
}
