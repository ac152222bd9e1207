package kit

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
)

// answerWatch passes the connection's lines to the real output and tells
// when the answer to shutdown has gone out. jsonrpc.Conn writes an answer
// after its handler returns and writes nothing after Close, so Serve must
// see the line leave before it closes the connection.
type answerWatch struct {
	w        io.Writer
	mu       sync.Mutex
	want     []byte        // the awaited answer line, nil while none is
	answered chan struct{} // closed once it has been written (or cannot be)
	once     sync.Once
}

func newAnswerWatch(w io.Writer) *answerWatch {
	return &answerWatch{w: w, answered: make(chan struct{})}
}

// expectNull awaits the null answer to the request id; for a notification
// (no id) there is nothing to wait for.
func (a *answerWatch) expectNull(id jsonrpc.ID) {
	if id.IsZero() {
		a.release()
		return
	}
	line, err := (&jsonrpc.Message{ID: id, Result: json.RawMessage("null")}).MarshalJSON()
	if err != nil {
		a.release() // an id the decoder accepted always encodes
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.want = line
}

// Write writes one line (jsonrpc.Conn writes each line, or batch, whole)
// and releases the watch when it carries the awaited answer. A failed write
// releases it too: the answer can no longer go out.
func (a *answerWatch) Write(line []byte) (int, error) {
	n, err := a.w.Write(line)
	a.mu.Lock()
	want := a.want
	a.mu.Unlock()
	if want != nil && (err != nil || bytes.Contains(line, want)) {
		a.release()
	}
	return n, err
}

func (a *answerWatch) release() {
	a.once.Do(func() { close(a.answered) })
}
