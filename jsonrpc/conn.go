package jsonrpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// DefaultLateMemory is how many timed-out call ids a connection remembers
// when Options.LateMemory is zero.
const DefaultLateMemory = 1024

// ErrClosed is the error of calls that could not get an answer because the
// connection ended: the peer's stream ended, a write failed, or Close was
// called. Errors of a failed write or read wrap both ErrClosed and the cause.
var ErrClosed = errors.New("jsonrpc: connection closed")

// Options configure a Conn. The zero value serves nothing (every request
// is answered -32601), reports nothing and uses the default limits.
type Options struct {
	// Handle serves an incoming request or notification. A notification's
	// return is ignored. Requests are served concurrently, one goroutine
	// each, and never block the reader; notifications are served one at a
	// time in the order they came, on a goroutine of their own. A batch is
	// answered by one array line once all its requests are served.
	// Returning an error that is or wraps an *Error sends that error (a
	// wrapping error's text becomes the message); any other error sends
	// -32603 with its text. The context ends when the Conn is closed.
	// Handle must not panic: a panic is a bug and crashes the program.
	// The reader starts inside NewConn, so a handler that calls the peer
	// through the Conn must not read a variable NewConn's result is stored
	// in before that store (hand it over through a channel closed after).
	Handle func(ctx context.Context, m *Message) (result any, err error)
	// OnEvent reports what the owner should journal. It is called from the
	// reader goroutine and must not block long.
	OnEvent func(Event)
	// MaxLine is the longest line read; 0 means DefaultMaxLine.
	MaxLine int
	// LateMemory is how many timed-out call ids are remembered to report
	// late answers; 0 means DefaultLateMemory, a negative value none.
	LateMemory int
	// Context is the parent of the handlers' contexts: they end when it
	// ends, or when the Conn is closed. Default context.Background().
	Context context.Context
	// WriteTimeout, when set and the writer has SetWriteDeadline (a pipe
	// *os.File), fails a line the peer has not taken within it: a peer that
	// stops reading then ends the connection instead of blocking every
	// sender for ever. Zero waits as long as the peer takes.
	WriteTimeout time.Duration
}

// Conn is one bidirectional JSON-RPC connection over a line stream: both
// sides may send requests, notifications and batches. It owns a reader
// goroutine and the goroutines serving the peer's messages; Close stops
// them and Wait waits for them.
type Conn struct {
	opts   Options
	lines  *LineReader
	closer io.Closer // the reader, when closing it stops reading
	out    lineWriter
	state  *inflight
	notes  noteQueue

	serveCtx    context.Context // the context of handlers, ended by Close
	stopServing context.CancelFunc
	serving     sync.WaitGroup // request handlers and the notification server
	done        chan struct{}  // closed when the reader has stopped
	closeOnce   sync.Once      // closes the reader once
	closeErr    error          // the error of that close
}

// NewConn starts a connection reading r and writing w.
func NewConn(r io.Reader, w io.Writer, opts Options) *Conn {
	if opts.LateMemory == 0 {
		opts.LateMemory = DefaultLateMemory
	}
	c := &Conn{
		opts:  opts,
		lines: NewLineReader(r, opts.MaxLine),
		out:   lineWriter{w: w, timeout: opts.WriteTimeout},
		state: newInflight(opts.LateMemory),
		notes: newNoteQueue(),
		done:  make(chan struct{}),
	}
	c.closer, _ = r.(io.Closer)
	parent := opts.Context
	if parent == nil {
		parent = context.Background()
	}
	c.serveCtx, c.stopServing = context.WithCancel(parent)
	if opts.Handle != nil {
		c.serving.Go(c.serveNotifications)
	}
	go c.readLoop()
	return c
}

// Close stops the connection: calls under way fail with ErrClosed at once,
// handlers' contexts end, nothing more is written, and the reader is closed
// when it is an io.Closer, which stops the reading goroutine. Close does
// not wait; Wait does. It returns the error of closing the reader.
func (c *Conn) Close() error {
	c.stop(nil, ErrClosed)
	return c.closeReader()
}

// closeReader closes the reader once, if it can be closed, and returns the
// error of that one close.
func (c *Conn) closeReader() error {
	c.closeOnce.Do(func() {
		if c.closer != nil {
			c.closeErr = c.closer.Close()
		}
	})
	return c.closeErr
}

// Wait waits until the reader has stopped and every handler has returned,
// then returns Err. Without Close it waits for the peer's stream to end
// and for the handlers serving it.
func (c *Conn) Wait() error {
	<-c.done
	c.serving.Wait()
	return c.Err()
}

// Done is closed when the reader has stopped: at the end of the stream, on
// a read error, or after Close.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Ended reports whether the connection has ended, so that nothing sent now
// could be answered. Calls under way have failed by the time it is true.
func (c *Conn) Ended() bool { return c.state.hasEnded() }

// Err returns why the connection ended: nil for the end of the peer's
// stream or for Close, the read or write error otherwise.
func (c *Conn) Err() error { return c.state.endCause() }

// stop ends the connection in both directions: pending calls fail with
// callErr, later writes fail, and handlers' contexts end. The end of the
// peer's stream alone does not stop writing, so that handlers still answer
// a peer that closed its side after sending its requests.
func (c *Conn) stop(cause, callErr error) {
	c.state.end(cause, callErr)
	c.out.close(callErr)
	c.stopServing()
}

// fail stops the connection after a write error, closing the reader so
// that the reading goroutine ends too.
func (c *Conn) fail(err error) {
	c.stop(err, fmt.Errorf("%w: %w", ErrClosed, err))
	c.closeReader() // its error adds nothing to err
}

// event reports e to the owner.
func (c *Conn) event(e Event) {
	if c.opts.OnEvent != nil {
		c.opts.OnEvent(e)
	}
}
