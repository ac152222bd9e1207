package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
)

// testHandler serves the methods the connection tests use.
func testHandler(notes chan<- *Message) func(context.Context, *Message) (any, error) {
	return func(ctx context.Context, m *Message) (any, error) {
		switch m.Method {
		case "echo":
			return m.Params, nil
		case "forbidden":
			return nil, ErrForbidden.WithReason("example.org is not in permissions.network of dev.escouade.slack")
		case "wrapped":
			return nil, fmt.Errorf("%w: key is empty", ErrInvalidParams)
		case "boom":
			return nil, errors.New("disk on fire")
		case "unencodable":
			return func() {}, nil
		case "block":
			<-ctx.Done()
			return nil, ctx.Err()
		case "note":
			notes <- m
			return nil, nil
		}
		return nil, ErrMethodNotFound
	}
}

// peer drives a Conn from the other end of two pipes, line by line.
type peer struct {
	t      *testing.T
	conn   *Conn
	toConn *io.PipeWriter // what the peer writes, the Conn reads
	lines  chan string    // what the Conn wrote, line by line
	events chan Event
	notes  chan *Message
	done   chan struct{} // closed when the peer has read everything
}

// newPeer starts a Conn with opts and the peer at its other end. Unless
// opts sets them, Handle is testHandler and events are collected.
func newPeer(t *testing.T, opts Options) *peer {
	return startPeer(t, opts, true)
}

// startPeer is newPeer, with the test handler only if withHandler is set.
func startPeer(t *testing.T, opts Options, withHandler bool) *peer {
	connIn, toConn := io.Pipe()
	fromConn, connOut := io.Pipe()
	p := &peer{
		t:      t,
		toConn: toConn,
		lines:  make(chan string, 1000),
		events: make(chan Event, 1000),
		notes:  make(chan *Message, 1000),
		done:   make(chan struct{}),
	}
	if opts.OnEvent == nil {
		opts.OnEvent = func(e Event) { p.events <- e }
	}
	if opts.Handle == nil && withHandler {
		opts.Handle = testHandler(p.notes)
	}
	p.conn = NewConn(connIn, connOut, opts)
	go p.readLines(fromConn)
	t.Cleanup(func() {
		p.conn.Close()
		p.conn.Wait()
		connOut.Close()
		<-p.done
	})
	return p
}

// readLines collects what the Conn writes until its output is closed.
func (p *peer) readLines(r io.Reader) {
	defer close(p.done)
	lines := NewLineReader(r, 0)
	for {
		line, _, err := lines.Next()
		if err != nil {
			return
		}
		p.lines <- string(line)
	}
}

// send writes one line to the Conn.
func (p *peer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.toConn, line+"\n"); err != nil {
		p.t.Fatalf("writing to the Conn: %v", err)
	}
}

// next returns the next line the Conn wrote.
func (p *peer) next() string {
	p.t.Helper()
	line, ok := <-p.lines
	if !ok {
		p.t.Fatal("the Conn wrote nothing more")
	}
	return line
}

// nextMessage returns the next line the Conn wrote as one message.
func (p *peer) nextMessage() *Message {
	p.t.Helper()
	line := DecodeLine([]byte(p.next()))
	if line.Batch || len(line.Items) != 1 || line.Items[0].Msg == nil {
		p.t.Fatalf("the Conn wrote %+v, want one valid message", line)
	}
	return line.Items[0].Msg
}

// syncLine is a request whose answer shows that every line sent before it
// has been read.
const (
	syncLine   = `{"jsonrpc":"2.0","id":"sync","method":"echo"}`
	syncAnswer = `{"jsonrpc":"2.0","id":"sync","result":null}`
)

// sync waits until the Conn has read every line sent so far and checks
// that it wrote nothing else meanwhile.
func (p *peer) sync() {
	p.t.Helper()
	p.send(syncLine)
	if got := p.next(); got != syncAnswer {
		p.t.Errorf("the Conn wrote %s before answering the sync request", got)
	}
}

// takeEvents returns the events reported so far; call it after sync.
func (p *peer) takeEvents() []Event {
	var events []Event
	for {
		select {
		case e := <-p.events:
			events = append(events, e)
		default:
			return events
		}
	}
}

// canonical sorts the members of a batch line, whose order is free.
func canonical(line string) string {
	var members []json.RawMessage
	if !strings.HasPrefix(line, "[") || json.Unmarshal([]byte(line), &members) != nil {
		return line
	}
	texts := make([]string, len(members))
	for i, m := range members {
		texts[i] = string(m)
	}
	slices.Sort(texts)
	return "[" + strings.Join(texts, ",") + "]"
}
