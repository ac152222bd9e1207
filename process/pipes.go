package process

import (
	"fmt"
	"os"
)

// pipes are the three standard streams of the program: the child ends go
// to the program and are closed in the host once it started, so that the
// host sees the end of stdout and stderr when the program's side closes.
type pipes struct {
	childStdin, hostStdin   *os.File
	hostStdout, childStdout *os.File
	hostStderr, childStderr *os.File
}

func openPipes() (*pipes, error) {
	var p pipes
	var err error
	if p.childStdin, p.hostStdin, err = os.Pipe(); err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	if p.hostStdout, p.childStdout, err = os.Pipe(); err != nil {
		p.closeAll()
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	if p.hostStderr, p.childStderr, err = os.Pipe(); err != nil {
		p.closeAll()
		return nil, fmt.Errorf("stderr pipe: %w", err)
	}
	return &p, nil
}

func (p *pipes) closeChildEnds() { closeFiles(p.childStdin, p.childStdout, p.childStderr) }

func (p *pipes) closeHostEnds() { closeFiles(p.hostStdin, p.hostStdout, p.hostStderr) }

func (p *pipes) closeAll() {
	p.closeChildEnds()
	p.closeHostEnds()
}

func closeFiles(files ...*os.File) {
	for _, f := range files {
		if f != nil {
			_ = f.Close()
		}
	}
}
