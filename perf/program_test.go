package perf

import (
	"io"
	"os"
	"os/exec"
	"testing"
)

// program is the test binary running as one of the programs, with its
// stdin and stdout held by the test.
type program struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out io.ReadCloser
}

// startProgram runs the test binary as the named program.
func startProgram(tb testing.TB, name string) *program {
	tb.Helper()
	cmd := exec.Command(testBinary(tb), "-test.run=^$")
	cmd.Env = append(os.Environ(), programEnv+"="+name)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	return &program{cmd: cmd, in: in, out: out}
}

// stop closes the program's stdin, which ends it, and waits for it; it
// may be called twice.
func (p *program) stop() {
	if p.cmd.ProcessState != nil {
		return
	}
	p.in.Close()
	p.cmd.Wait()
}

// testBinary is the path of the running test binary, which doubles as
// every program at the other end of the pipe.
func testBinary(tb testing.TB) string {
	tb.Helper()
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	return exe
}
