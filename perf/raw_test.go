package perf

import (
	"bufio"
	"bytes"
	"testing"
)

// rawRig talks to the raw echo program over its stdin and stdout.
type rawRig struct {
	prog *program
	out  *bufio.Reader

	one    []byte   // the round trip's line
	lines  [][]byte // a batch's lines, one by one
	joined []byte   // the same lines, written at once
}

// startRaw runs the test binary as the raw echo program.
func startRaw(tb testing.TB) *rawRig {
	tb.Helper()
	prog := startProgram(tb, programRawEcho)
	r := &rawRig{prog: prog, out: bufio.NewReader(prog.out), one: echoLine(1)}
	for id := 1; id <= batchSize; id++ {
		r.lines = append(r.lines, echoLine(id))
	}
	r.joined = bytes.Join(r.lines, nil)
	tb.Cleanup(r.close)
	return r
}

func (r *rawRig) roundTrip() error {
	if _, err := r.prog.in.Write(r.one); err != nil {
		return err
	}
	got, err := r.out.ReadSlice('\n')
	if err != nil {
		return err
	}
	return checkEcho(r.one, got)
}

func (r *rawRig) batch() error {
	if _, err := r.prog.in.Write(r.joined); err != nil {
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

func (r *rawRig) close() { r.prog.stop() }
