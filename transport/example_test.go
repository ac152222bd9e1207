package transport_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/escouade-dev/escouade-plugin/transport"
)

// A transport's whole life as the host leads it: launch a program from a
// LaunchSpec, speak whole lines over its stdin and stdout, stop it with
// StopOptions, and read what ended it from its Exit, by kind. The program
// here is the simplest one, inside the process: it says back each line in
// upper case and exits when its stdin ends.
func Example() {
	ctx := context.Background()
	var t transport.Transport = shouting{}
	prog, err := t.Launch(ctx, transport.LaunchSpec{Name: "dev.escouade.hello", Dir: ".", Kind: "shout"})
	if err != nil {
		fmt.Println("could not start:", err)
		return
	}
	fmt.Println("started,", prog.ID())
	fmt.Fprintln(prog.Stdin(), "hello")
	line, _ := bufio.NewReader(prog.Stdout()).ReadString('\n')
	fmt.Print("it says ", line)

	// The program was sent nothing to end on: its stop starts gently.
	_ = prog.Stop(ctx, transport.StopOptions{})
	<-prog.Done()
	exit := prog.Exit()
	switch {
	case errors.Is(exit, transport.ErrExited):
		fmt.Println("it exited by itself:", exit.Code)
	case errors.Is(exit, transport.ErrTurnTooLong), errors.Is(exit, transport.ErrOutOfMemory):
		fmt.Println("it broke a limit:", exit)
	default:
		fmt.Println("it ended:", exit)
	}
	// What only some programs have comes through an optional interface.
	if _, ok := prog.(transport.MemoryReader); !ok {
		fmt.Println("its memory is its transport's to bound")
	}
	// Output:
	// started, shout 1
	// it says HELLO
	// it exited by itself: 0
	// its memory is its transport's to bound
}

// shouting is a transport of one kind, "shout".
type shouting struct{}

func (shouting) Launch(ctx context.Context, spec transport.LaunchSpec) (transport.Program, error) {
	if spec.Kind != "shout" {
		return nil, fmt.Errorf("run.%s is not a shout", spec.Kind)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &shout{in: inW, out: outR, done: make(chan struct{})}
	go p.run(inR, outW)
	return p, nil
}

func (shouting) Close(context.Context) error { return nil }

// shout is one running program of the shouting transport.
type shout struct {
	in   *io.PipeWriter
	out  *io.PipeReader
	done chan struct{}
	exit transport.Exit
}

func (p *shout) run(in *io.PipeReader, out *io.PipeWriter) {
	defer close(p.done)
	lines := bufio.NewScanner(in)
	for lines.Scan() {
		fmt.Fprintln(out, strings.ToUpper(lines.Text()))
	}
	out.Close()
	p.exit = transport.Exit{Kind: transport.Exited, Code: 0}
}

func (p *shout) Stdin() io.WriteCloser { return p.in }
func (p *shout) Stdout() io.ReadCloser { return p.out }
func (p *shout) ID() string            { return "shout 1" }
func (p *shout) Done() <-chan struct{} { return p.done }
func (p *shout) LastStderr() []string  { return nil }

func (p *shout) Exit() transport.Exit {
	select {
	case <-p.done:
		return p.exit
	default:
		return transport.Exit{}
	}
}

// Stop closes stdin, on which the program exits; a done ctx does not wait
// for it.
func (p *shout) Stop(ctx context.Context, _ transport.StopOptions) error {
	p.in.Close()
	select {
	case <-p.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
