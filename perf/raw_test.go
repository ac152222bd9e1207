package perf

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"testing"
)

// rawRig talks to the raw echo program over its stdin and stdout.
type rawRig struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader

	one    []byte   // the round trip's line
	lines  [][]byte // a batch's lines, one by one
	joined []byte   // the same lines, written at once
}

// startRaw runs the test binary as the raw echo program.
func startRaw(tb testing.TB) *rawRig {
	tb.Helper()
	cmd := exec.Command(testBinary(tb), "-test.run=^$")
	cmd.Env = append(os.Environ(), programEnv+"="+programRawEcho)
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
	r := &rawRig{cmd: cmd, in: in, out: bufio.NewReader(out), one: echoLine(1)}
	for id := 1; id <= batchSize; id++ {
		r.lines = append(r.lines, echoLine(id))
	}
	r.joined = bytes.Join(r.lines, nil)
	tb.Cleanup(r.close)
	return r
}

func (r *rawRig) roundTrip() error {
	if _, err := r.in.Write(r.one); err != nil {
		return err
	}
	got, err := r.out.ReadSlice('\n')
	if err != nil {
		return err
	}
	return checkEcho(r.one, got)
}

func (r *rawRig) batch() error {
	if _, err := r.in.Write(r.joined); err != nil {
		return err
	}
	for _, sent := range r.lines {
		got, err := r.out.ReadSlice('\n')
		if err != nil {
			return err
		}
		if err := checkEcho(sent, got); err != nil {
			return err
		}
	}
	return nil
}

// close ends the echo by closing its stdin; it may be called twice.
func (r *rawRig) close() {
	if r.cmd.ProcessState != nil {
		return
	}
	r.in.Close()
	r.cmd.Wait()
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
