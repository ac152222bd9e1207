package examples_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
)

// fakeHost serves what an example asks the host: secrets/get, settings/get
// and files/read (reading the example's folder), and collects its logs and
// what its stdout held besides the protocol.
type fakeHost struct {
	conn *jsonrpc.Conn
	root string
	logs chan string
	// peerErrors receives the error answers with id null: the example
	// could not read a line the host sent.
	peerErrors chan *jsonrpc.Error

	mu       sync.Mutex
	settings map[string]any
	secret   any // the value of the "token" secret, nil when none is kept
	bad      []jsonrpc.Event
}

func newFakeHost(root string, stdout io.Reader, stdin io.Writer) *fakeHost {
	h := &fakeHost{root: root, logs: make(chan string, 16), peerErrors: make(chan *jsonrpc.Error, 4), settings: map[string]any{}}
	h.conn = jsonrpc.NewConn(stdout, stdin, jsonrpc.Options{Handle: h.handle, OnEvent: h.onEvent})
	return h
}

// set chooses what settings/get and secrets/get answer.
func (h *fakeHost) set(settings map[string]any, secret any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.settings, h.secret = settings, secret
}

func (h *fakeHost) handle(_ context.Context, m *jsonrpc.Message) (any, error) {
	switch m.Method {
	case "log":
		return nil, h.log(m.Params)
	case "secrets/get":
		return h.secretsGet(m.Params)
	case "settings/get":
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.settings, nil
	case "files/read":
		return h.filesRead(m.Params)
	}
	return nil, jsonrpc.ErrMethodNotFound
}

func (h *fakeHost) log(params json.RawMessage) error {
	var in struct{ Level, Message string }
	if err := json.Unmarshal(params, &in); err != nil {
		return err
	}
	h.logs <- in.Level + " " + in.Message
	return nil
}

func (h *fakeHost) secretsGet(params json.RawMessage) (any, error) {
	var in struct{ Key string }
	if err := json.Unmarshal(params, &in); err != nil {
		return nil, fmt.Errorf("%w: %v", jsonrpc.ErrInvalidParams, err)
	}
	if in.Key != "token" {
		return nil, jsonrpc.ErrNotYours
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.secret, nil
}

// filesRead reads a file of the example's folder through os.Root, which
// keeps the read inside it; the host's full checks live in its own package.
func (h *fakeHost) filesRead(params json.RawMessage) (any, error) {
	var in struct{ Path string }
	if err := json.Unmarshal(params, &in); err != nil {
		return nil, fmt.Errorf("%w: %v", jsonrpc.ErrInvalidParams, err)
	}
	root, err := os.OpenRoot(h.root)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	data, err := root.ReadFile(in.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, jsonrpc.ErrMissing
	case err != nil:
		return nil, jsonrpc.ErrForbidden.WithReason(err.Error())
	}
	return string(data), nil
}

func (h *fakeHost) onEvent(e jsonrpc.Event) {
	if e.Kind == jsonrpc.EventPeerError {
		h.peerErrors <- e.Err
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.bad = append(h.bad, e)
}

// nextPeerError returns the next error answer with id null.
func (h *fakeHost) nextPeerError(t *testing.T) *jsonrpc.Error {
	t.Helper()
	select {
	case e := <-h.peerErrors:
		return e
	case <-time.After(waitLimit(t)):
		t.Fatal("no error answer with id null from the example")
		return nil
	}
}

// events returns what else the connection reported: lines that were not
// JSON-RPC, unknown answers.
func (h *fakeHost) events() []jsonrpc.Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.bad
}

// nextLog returns the next log line, as "<level> <message>".
func (h *fakeHost) nextLog(t *testing.T) string {
	t.Helper()
	select {
	case line := <-h.logs:
		return line
	case <-time.After(waitLimit(t)):
		t.Fatal("no log from the example")
		return ""
	}
}
