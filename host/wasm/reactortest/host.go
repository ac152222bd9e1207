package reactortest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"

	"github.com/escouade-dev/escouade-plugin/vocab"
)

// Wire is a plugin's program as a test host drives it: a module through
// its turns, or a program through its streams.
type Wire interface {
	// Send gives the program one line (the newline is added). It is safe
	// for concurrent use: a service may notify while a call is under way.
	Send(line []byte) error
	// Receive returns the program's next lines, waiting for them.
	Receive(ctx context.Context) ([][]byte, error)
}

// ModuleWire drives a module: Receive runs turns until the module writes
// something, and between turns that wrote nothing waits until a line is
// appended (by Send, from the test or a service).
type ModuleWire struct {
	Module *Module
	// Turns counts the turns run.
	Turns int
	ended error
}

// Send appends line to the module's stdin.
func (w *ModuleWire) Send(line []byte) error {
	w.Module.Append(append(bytes.Clone(line), '\n'))
	return nil
}

// Receive runs turns until one writes lines.
func (w *ModuleWire) Receive(ctx context.Context) ([][]byte, error) {
	for w.ended == nil {
		out, err := w.Module.Turn(ctx)
		w.Turns++
		if err != nil {
			w.ended = fmt.Errorf("the instance ended: %w", err)
		}
		if lines := splitLines(out); len(lines) > 0 {
			return lines, nil
		}
		if w.ended != nil {
			break
		}
		select {
		case <-w.Module.Appended():
		case <-ctx.Done():
			return nil, fmt.Errorf("no line from the module: %w", ctx.Err())
		}
	}
	return nil, w.ended
}

// StreamWire drives a program through its stdin and stdout streams: a
// process's pipes, or the Stdin and Stdout of a transport.Program.
type StreamWire struct {
	mu    sync.Mutex
	stdin io.WriteCloser
	lines chan []byte
	err   error // why lines closed
}

// ProcessWire is the StreamWire of a process.
type ProcessWire = StreamWire

// StartProcess starts cmd with its stdin and stdout piped to the wire.
func StartProcess(cmd *exec.Cmd) (*ProcessWire, error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return NewStreamWire(stdin, stdout), nil
}

// NewStreamWire drives a program that reads stdin and writes stdout.
func NewStreamWire(stdin io.WriteCloser, stdout io.Reader) *StreamWire {
	w := &StreamWire{stdin: stdin, lines: make(chan []byte, 64)}
	go w.read(stdout)
	return w
}

func (w *StreamWire) read(stdout io.Reader) {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		w.lines <- bytes.Clone(sc.Bytes())
	}
	w.err = sc.Err()
	if w.err == nil {
		w.err = io.EOF
	}
	close(w.lines)
}

// Send writes line to the program's stdin.
func (w *StreamWire) Send(line []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, err := w.stdin.Write(append(bytes.Clone(line), '\n'))
	return err
}

// CloseStdin closes the program's stdin.
func (w *StreamWire) CloseStdin() error { return w.stdin.Close() }

// Receive returns the next line of stdout.
func (w *StreamWire) Receive(ctx context.Context) ([][]byte, error) {
	select {
	case line, ok := <-w.lines:
		if !ok {
			return nil, fmt.Errorf("the program's stdout ended: %w", w.err)
		}
		return [][]byte{line}, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("no line from the program: %w", ctx.Err())
	}
}

func splitLines(out []byte) [][]byte {
	var lines [][]byte
	for line := range bytes.Lines(out) {
		if line = bytes.TrimSuffix(line, []byte("\n")); len(line) > 0 {
			lines = append(lines, line)
		}
	}
	return lines
}

// ServeFunc answers one request of the plugin: a result, or an error
// whose *RPCError gives the code (any other error answers -32603).
type ServeFunc func(method string, params json.RawMessage) (any, error)

// RPCError is an error answer of the test host.
type RPCError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("%d %s", e.Code, e.Message) }

// Host plays the host's side of the protocol over a Wire: it sends the
// test's lines, answers the plugin's requests with Serve, records its
// notifications and hands back its answers. It is not safe for concurrent
// use, but Send may be called while a Roundtrip waits.
type Host struct {
	Wire  Wire
	Serve ServeFunc
	// Asked records the plugin's requests, "method params", in order.
	Asked []string
	// Notes records the plugin's notifications, "method params".
	Notes  []string
	nextID int
	queue  [][]byte // answers received while waiting for another
}

// message is the shape of every line this host reads.
type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
}

// Send sends a line without waiting for anything.
func (h *Host) Send(line string) error { return h.Wire.Send([]byte(line)) }

// Roundtrip sends line and returns the plugin's next answer: a response,
// or an array of them for a batch. The plugin's requests and notifications
// met on the way are served and recorded.
func (h *Host) Roundtrip(ctx context.Context, line string) (string, error) {
	if err := h.Wire.Send([]byte(line)); err != nil {
		return "", err
	}
	return h.Next(ctx)
}

// Next returns the plugin's next answer without sending anything.
func (h *Host) Next(ctx context.Context) (string, error) {
	for {
		if len(h.queue) > 0 {
			answer := h.queue[0]
			h.queue = h.queue[1:]
			return string(answer), nil
		}
		lines, err := h.Wire.Receive(ctx)
		if err != nil {
			return "", err
		}
		for _, line := range lines {
			if err := h.take(line); err != nil {
				return "", err
			}
		}
	}
}

// Drain reads the program's lines until its output ends (a process closes
// stdout, a module exits), serving and recording them as Next does; it
// returns the answers among them. What a program writes after its answer
// to shutdown, a notification of a handler still running, is read so.
func (h *Host) Drain(ctx context.Context) ([]string, error) {
	for {
		lines, err := h.Wire.Receive(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			break // the end of the output
		}
		for _, line := range lines {
			if err := h.take(line); err != nil {
				return nil, err
			}
		}
	}
	var answers []string
	for _, a := range h.queue {
		answers = append(answers, string(a))
	}
	h.queue = nil
	return answers, nil
}

// Call sends a request with the next id and returns the answer's line.
func (h *Host) Call(ctx context.Context, method string, params any) (string, error) {
	h.nextID++
	line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": h.nextID, "method": method, "params": params})
	if err != nil {
		return "", err
	}
	return h.Roundtrip(ctx, string(line))
}

// take files one line of the plugin: a request is served, a notification
// recorded, an answer queued.
func (h *Host) take(line []byte) error {
	if bytes.HasPrefix(line, []byte("[")) {
		h.queue = append(h.queue, line)
		return nil
	}
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		return fmt.Errorf("the plugin wrote %q: %v", line, err)
	}
	switch {
	case m.Method == "":
		h.queue = append(h.queue, line)
	case m.ID == nil:
		h.Notes = append(h.Notes, m.Method+" "+string(m.Params))
	default:
		h.Asked = append(h.Asked, m.Method+" "+string(m.Params))
		return h.answer(m)
	}
	return nil
}

// answer sends the answer to a request of the plugin.
func (h *Host) answer(m message) error {
	reply := map[string]any{"jsonrpc": "2.0", "id": m.ID}
	var result any
	err := &RPCError{Code: vocab.CodeMethodNotFound, Message: vocab.MessageMethodNotFound}
	if h.Serve != nil {
		var serr error
		result, serr = h.Serve(m.Method, m.Params)
		err = nil
		if serr != nil && !errors.As(serr, &err) {
			err = &RPCError{Code: vocab.CodeInternalError, Message: serr.Error()}
		}
	}
	if err != nil {
		reply["error"] = err
	} else {
		reply["result"] = result
	}
	line, merr := json.Marshal(reply)
	if merr != nil {
		return merr
	}
	return h.Wire.Send(line)
}
