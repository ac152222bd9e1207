package reactortest

import (
	"context"
	"encoding/json"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// echoWire is a program that answers each request line with its params,
// after asking the host for a secret once.
type echoWire struct {
	in  chan []byte
	out chan [][]byte
}

func newEchoWire() *echoWire {
	w := &echoWire{in: make(chan []byte, 16), out: make(chan [][]byte, 16)}
	go w.run()
	return w
}

func (w *echoWire) Send(line []byte) error { w.in <- line; return nil }

func (w *echoWire) Receive(ctx context.Context) ([][]byte, error) {
	select {
	case lines, ok := <-w.out:
		if !ok {
			return nil, io.EOF
		}
		return lines, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (w *echoWire) run() {
	defer close(w.out)
	for line := range w.in {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		json.Unmarshal(line, &m)
		switch m.Method {
		case "shutdown":
			w.out <- [][]byte{[]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":null}`), []byte(`{"jsonrpc":"2.0","method":"log","params":{"late":true}}`)}
			return
		case "":
			continue // the host's answer to our request
		}
		w.out <- [][]byte{[]byte(`{"jsonrpc":"2.0","id":"p1","method":"secrets/get","params":{"key":"token"}}`)}
		<-w.in // the answer
		w.out <- [][]byte{[]byte(`{"jsonrpc":"2.0","method":"log","params":{}}`), []byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + string(m.Params) + `}`)}
	}
}

func TestHostServesRecordsAndAnswers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	wire := newEchoWire()
	h := &Host{Wire: wire, Serve: func(string, json.RawMessage) (any, error) {
		return nil, &RPCError{Code: -32001, Message: "not yours"}
	}}
	got, err := h.Call(ctx, "t/echo", []int{1})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(`{"jsonrpc":"2.0","id":1,"result":[1]}`, got); diff != "" {
		t.Errorf("answer (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{`secrets/get {"key":"token"}`}, h.Asked); diff != "" {
		t.Errorf("Asked (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"log {}"}, h.Notes); diff != "" {
		t.Errorf("Notes (-want +got):\n%s", diff)
	}
	if _, err := h.Call(ctx, "shutdown", nil); err != nil {
		t.Fatal(err)
	}
	more, err := h.Drain(ctx)
	if err != nil || len(more) != 0 {
		t.Errorf("Drain = %q, %v; want nothing more, nil", more, err)
	}
	if diff := cmp.Diff([]string{"log {}", `log {"late":true}`}, h.Notes); diff != "" {
		t.Errorf("Notes after Drain (-want +got):\n%s", diff)
	}
}

func TestStdinReadsNeverBlock(t *testing.T) {
	for _, eagain := range []bool{false, true} {
		s := &stdin{eagain: eagain, appended: make(chan struct{}, 1)}
		buf := make([]byte, 4)
		n, err := s.Read(buf)
		wantErr := error(nil)
		if eagain {
			wantErr = syscall.EAGAIN
		}
		if n != 0 || err != wantErr {
			t.Errorf("eagain=%v: an empty read = %d, %v; want 0, %v", eagain, n, err, wantErr)
		}
		s.append([]byte("abcdef\n"))
		select {
		case <-s.appended:
		default:
			t.Error("append did not signal")
		}
		if n, _ := s.Read(buf); n != 4 || s.unread() != 3 {
			t.Errorf("read %d with %d left, want 4 with 3", n, s.unread())
		}
	}
}

func TestSplitLines(t *testing.T) {
	got := splitLines([]byte("a\n\nb\nc"))
	want := [][]byte{[]byte("a"), []byte("b"), []byte("c")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("splitLines (-want +got):\n%s", diff)
	}
}
