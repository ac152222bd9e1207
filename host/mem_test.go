package host

import (
	"context"
	"io"
	"sync"
	"sync/atomic"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/transport"
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
	exit      transport.Exit
	memory    atomic.Uint64
	firstStop atomic.Pointer[transport.StopOptions] // the options of its first Stop
}

type memHandler func(ctx context.Context, prog *memProgram, m *jsonrpc.Message) (any, error)

func newMemProgram(handle memHandler) *memProgram {
	p := &memProgram{done: make(chan struct{}), quit: make(chan struct{})}
	p.inR, p.inW = io.Pipe()
	p.outR, p.outW = io.Pipe()
	p.conn = jsonrpc.NewConn(p.inR, p.outW, jsonrpc.Options{
		Handle: func(ctx context.Context, m *jsonrpc.Message) (any, error) { return handle(ctx, p, m) },
	})
	go func() {
		<-p.conn.Done()
		p.end(exited(0))
	}()
	return p
}

// exited is the Exit of a program that exited with code.
func exited(code int) transport.Exit { return transport.Exit{Kind: transport.Exited, Code: code} }

// launchFunc is a transport made of one function, closed with nothing.
type launchFunc func(context.Context, transport.LaunchSpec) (transport.Program, error)

func (f launchFunc) Launch(ctx context.Context, spec transport.LaunchSpec) (transport.Program, error) {
	return f(ctx, spec)
}

func (launchFunc) Close(context.Context) error { return nil }

// memTransports is Options.Transports running every kind of program on t.
func memTransports(t transport.Transport) map[manifest.RunKind]transport.Transport {
	return map[manifest.RunKind]transport.Transport{manifest.RunProcess: t, manifest.RunWASM: t, manifest.RunJS: t}
}

// memLauncher launches a new memProgram per start and counts them.
func memLauncher(handle memHandler, started *atomic.Int32, last *atomic.Pointer[memProgram]) launchFunc {
	return func(context.Context, transport.LaunchSpec) (transport.Program, error) {
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

// end makes the program exit that way.
func (p *memProgram) end(exit transport.Exit) {
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
func (p *memProgram) ID() string              { return "instance" }
func (p *memProgram) Done() <-chan struct{}   { return p.done }
func (p *memProgram) Exit() transport.Exit    { return p.exit }
func (p *memProgram) LastStderr() []string    { return nil }
func (p *memProgram) Memory() (uint64, error) { return p.memory.Load(), nil }

// Stop ends it as a process that honours a closed stdin would.
func (p *memProgram) Stop(_ context.Context, opts transport.StopOptions) error {
	p.firstStop.CompareAndSwap(nil, &opts)
	p.end(exited(0))
	return nil
}
