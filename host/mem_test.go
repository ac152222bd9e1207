package host

import (
	"context"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
)

// memProgram is a program living in the test's goroutines, over pipes, so
// timing rules run on synctest's clock. Its behaviour is a JSON-RPC handler.
type memProgram struct {
	inR, outR *io.PipeReader
	inW, outW *io.PipeWriter
	conn      *jsonrpc.Conn
	done      chan struct{}
	quit      chan struct{} // closed when it ends: handlers waiting forever return
	once      sync.Once
	exit      string
	memory    atomic.Uint64
}

type memHandler func(ctx context.Context, prog *memProgram, m *jsonrpc.Message) (any, error)

func newMemProgram(handle memHandler) *memProgram {
	p := &memProgram{done: make(chan struct{}), quit: make(chan struct{}), exit: "exit code 0"}
	p.inR, p.inW = io.Pipe()
	p.outR, p.outW = io.Pipe()
	p.conn = jsonrpc.NewConn(p.inR, p.outW, jsonrpc.Options{
		Handle: func(ctx context.Context, m *jsonrpc.Message) (any, error) { return handle(ctx, p, m) },
	})
	go func() {
		<-p.conn.Done()
		p.end("exit code 0")
	}()
	return p
}

// memLauncher launches a new memProgram per start and counts them.
func memLauncher(handle memHandler, started *atomic.Int32, last *atomic.Pointer[memProgram]) Launcher {
	return func(context.Context, LaunchSpec) (Program, error) {
		p := newMemProgram(handle)
		if started != nil {
			started.Add(1)
		}
		if last != nil {
			last.Store(p)
		}
		return p, nil
	}
}

// end makes the program exit with that text.
func (p *memProgram) end(exit string) {
	p.once.Do(func() {
		p.exit = exit
		close(p.quit)
		p.conn.Close()
		p.outW.Close()
		p.inR.Close()
		close(p.done)
	})
}

func (p *memProgram) Stdin() io.WriteCloser   { return p.inW }
func (p *memProgram) Stdout() io.ReadCloser   { return p.outR }
func (p *memProgram) Describe() string        { return "instance" }
func (p *memProgram) PID() int                { return 0 }
func (p *memProgram) Done() <-chan struct{}   { return p.done }
func (p *memProgram) ExitText() string        { return p.exit }
func (p *memProgram) LastStderr() []string    { return nil }
func (p *memProgram) KillGroup()              { p.end("signal killed") }
func (p *memProgram) Memory() (uint64, error) { return p.memory.Load(), nil }

// Stop ends it as a process that honours a closed stdin would.
func (p *memProgram) Stop(context.Context, time.Duration) { p.end("exit code 0") }
