package kit

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/escouade-dev/escouade-plugin/internal/testutil"
	"io"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
)

// testTimeout bounds every wait of a test, so that a bug fails the test
// instead of hanging it.
const testTimeout = 10 * time.Second

// fakeHost plays the host over pipes against a plugin's Serve.
type fakeHost struct {
	conn   *jsonrpc.Conn
	input  *io.PipeWriter // the plugin's stdin, written by the host
	output *io.PipeWriter // the plugin's stdout, written by the plugin
	served chan struct{}  // closed when Serve has returned
	err    error          // what Serve returned
	notes  chan *jsonrpc.Message
}

// hostHandler answers the plugin's calls; nil answers -32601.
type hostHandler func(m *jsonrpc.Message) (any, error)

// startPlugin serves p against a fake host answering with answer.
func startPlugin(t *testing.T, p *Plugin, answer hostHandler) *fakeHost {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	h := &fakeHost{input: inW, output: outW, served: make(chan struct{}), notes: make(chan *jsonrpc.Message, 64)}
	h.conn = jsonrpc.NewConn(outR, inW, jsonrpc.Options{Handle: h.handler(answer)})
	go func() {
		h.err = p.Serve(context.Background(), inR, outW)
		outW.Close()
		close(h.served)
	}()
	t.Cleanup(func() {
		inW.Close()
		if err := h.waitServed(t); err != nil {
			t.Errorf("Serve: %v", err)
		}
		h.conn.Close()
		h.conn.Wait()
	})
	return h
}

func (h *fakeHost) handler(answer hostHandler) func(context.Context, *jsonrpc.Message) (any, error) {
	return func(_ context.Context, m *jsonrpc.Message) (any, error) {
		if m.IsNotification() {
			h.notes <- m
			return nil, nil
		}
		if answer == nil {
			return nil, jsonrpc.ErrMethodNotFound
		}
		return answer(m)
	}
}

// call calls the plugin with a bounded wait.
func (h *fakeHost) call(t *testing.T, method string, params any) (json.RawMessage, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	return h.conn.Call(ctx, method, params)
}

// mustCall calls the plugin and fails the test on an error.
func (h *fakeHost) mustCall(t *testing.T, method string, params any) string {
	t.Helper()
	raw, err := h.call(t, method, params)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return string(raw)
}

// nextNote returns the next notification the plugin sent.
func (h *fakeHost) nextNote(t *testing.T) *jsonrpc.Message {
	t.Helper()
	select {
	case m := <-h.notes:
		return m
	case <-time.After(testTimeout):
		t.Fatal("no notification from the plugin")
		return nil
	}
}

// waitServed waits for Serve to return and returns its error.
func (h *fakeHost) waitServed(t *testing.T) error {
	t.Helper()
	select {
	case <-h.served:
		return h.err
	case <-time.After(testTimeout):
		t.Fatal("Serve did not return")
		return nil
	}
}

// errorCode returns the JSON-RPC code of err, or 0.
func errorCode(err error) int64 {
	var e *jsonrpc.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// syncBuffer is shared by the plugin's trace writer and the test.
type syncBuffer = testutil.SyncBuffer

// quietPlugin returns a plugin whose traces go to the returned buffer.
func quietPlugin() (*Plugin, *syncBuffer) {
	stderr := &syncBuffer{}
	return NewWithOptions(Options{Stderr: stderr}), stderr
}
