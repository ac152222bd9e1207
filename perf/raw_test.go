package perf

import (
	"bufio"
	"bytes"
	"fmt"
	"testing"
)

// readBuffer holds the longest answer line, a batch's array.
const readBuffer = 64 << 10

// lineRig writes request lines to a program and reads its answer lines
// with no JSON on the calling side: fixed bytes out, bytes compared back.
type lineRig struct {
	prog *program
	out  *bufio.Reader

	one, oneWant     []byte   // the round trip's line and its answer
	batchReq         []byte   // a batch's request bytes, written at once
	batchWant        [][]byte // the answer lines to them, in order
	batchDescription string   // what the batch is, for errors
}

// startRaw runs the test binary as the raw echo program, which gets the
// batch as batchSize lines and echoes each: the floor any line protocol
// over this pipe is held to.
func startRaw(tb testing.TB) *lineRig {
	tb.Helper()
	r := &lineRig{one: echoLine(1), oneWant: echoLine(1), batchDescription: "lines"}
	for id := 1; id <= batchSize; id++ {
		r.batchWant = append(r.batchWant, echoLine(id))
	}
	r.batchReq = bytes.Join(r.batchWant, nil)
	return r.start(tb, programRawEcho)
}

// startInlineDirect runs the inline plugin and speaks to it without
// the host: the plugin's share of the cost, JSON included, with no
// goroutine on either side.
func startInlineDirect(tb testing.TB) *lineRig {
	tb.Helper()
	var requests, answers [][]byte
	for id := 1; id <= batchSize; id++ {
		requests = append(requests, bytes.TrimSuffix(echoLine(id), []byte("\n")))
		answers = append(answers, echoAnswer(id))
	}
	r := &lineRig{
		one:              echoLine(1),
		oneWant:          append(echoAnswer(1), '\n'),
		batchReq:         arrayLine(requests),
		batchWant:        [][]byte{arrayLine(answers)},
		batchDescription: "array",
	}
	return r.start(tb, programInline)
}

func (r *lineRig) start(tb testing.TB, program string) *lineRig {
	r.prog = startProgram(tb, program)
	r.out = bufio.NewReaderSize(r.prog.out, readBuffer)
	tb.Cleanup(r.close)
	return r
}

// echoAnswer is the answer line of the echo call id, without its "\n".
func echoAnswer(id int) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"result":%s}`, id, echoParams)
}

// arrayLine joins JSON values into one array line.
func arrayLine(values [][]byte) []byte {
	line := append([]byte{'['}, bytes.Join(values, []byte{','})...)
	return append(line, ']', '\n')
}

func (r *lineRig) roundTrip() error {
	if _, err := r.prog.in.Write(r.one); err != nil {
		return err
	}
	return r.expect(r.oneWant)
}

func (r *lineRig) batch() error {
	if _, err := r.prog.in.Write(r.batchReq); err != nil {
		return err
	}
	for _, want := range r.batchWant {
		if err := r.expect(want); err != nil {
			return fmt.Errorf("batch as %s: %w", r.batchDescription, err)
		}
	}
	return nil
}

// expect reads one line and checks it is want.
func (r *lineRig) expect(want []byte) error {
	got, err := r.out.ReadSlice('\n')
	if err != nil {
		return err
	}
	return checkEcho(want, got)
}

func (r *lineRig) close() { r.prog.stop() }
