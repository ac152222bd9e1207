package jsonrpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/escouade-dev/escouade-plugin/vocab"
)

// DefaultLateMemory is how many timed-out call ids a connection remembers
// when Options.LateMemory is zero.
const DefaultLateMemory = vocab.LimitLateMemory

// ErrClosed is the error of calls that could not get an answer because the
// connection ended: the peer's stream ended, a write failed, or Close was
// called. Errors of a failed write or read wrap both ErrClosed and the cause.
var ErrClosed = errors.New("jsonrpc: connection closed")

// Options configure a Conn. The zero value serves nothing (every request
// is answered -32601), reports nothing and uses the default limits.
type Options struct {
	// Handle serves an incoming request or notification. A notification's
	// return is ignored. Requests are served concurrently and never block
	// the reader; notifications are served one at a time in the order they
	// came, on a goroutine of their own. A batch is answered by one array
	// line once all its requests are answered.
	//
	// Returning an error that is or wraps an *Error sends that error (a
	// wrapping error's text becomes the message); any other error sends
	// -32603 with its text. Returning ErrAsyncResponse sends nothing: the
	// answer goes later through Conn.Respond. The context ends when the
	// Conn is closed. A panic answers -32603 and is reported as
	// EventHandlerPanic; it never takes the program down.
	Handle func(ctx context.Context, m *Message) (result any, err error)
	// Bind, when set, is called by NewConn with the new Conn before its
	// reader starts, so that what serves the peer holds the Conn before
	// the first message comes: to notify the peer from a handler or
	// later, or to Respond to a request answered asynchronously. Bind may
	// send, but must not wait for an answer: nothing is read until it
	// returns.
	Bind func(c *Conn)
	// InOrder, when set, names the methods whose handlers neither block
	// nor call the peer: the reader serves such a request or notification
	// itself before it reads the next line (a batch's members in the
	// batch's order), so their effects follow the order of the lines, as a
	// cap that refuses the request past it needs, or a log written before
	// an answer. Any other request is served beside the reading, and any
	// other notification by the connection's queue of them.
	InOrder func(method string) bool
	// OnEvent reports what the owner should journal. It is called from the
	// connection's goroutines and must not block long.
	OnEvent func(Event)
	// MaxLine is the longest line read; 0 means DefaultMaxLine.
	MaxLine int
	// MaxWriteLine is the longest line written; 0 means DefaultMaxLine. An
	// answer that would be longer is replaced by ErrFailed naming the
	// limit; a request or notification that would be longer is not sent
	// and its call fails with ErrLineTooLong.
	MaxWriteLine int
	// MaxRequests is how many of the peer's requests are served at once,
	// their handler running; 0 means DefaultMaxRequests. Past it the Conn
	// stops reading. A request whose handler returned ErrAsyncResponse
	// gives its slot back.
	MaxRequests int
	// MaxLater is how many of the peer's requests wait for Respond at once;
	// 0 means DefaultMaxLater. Past it the Conn stops reading.
	MaxLater int
	// MaxHeld is how many bytes the Conn holds for the peer: the lines of
	// the requests it serves, the answers waiting to be written and the
	// notifications waiting to be served; 0 means DefaultMaxHeld. Past it
	// the Conn stops reading.
	MaxHeld int
	// MaxNotifications is how many notifications wait for their server;
	// 0 means DefaultMaxNotifications. Past it the Conn stops reading.
	MaxNotifications int
	// LateMemory is how many timed-out call ids are remembered to report
	// late answers; 0 means DefaultLateMemory, a negative value none.
	LateMemory int
	// Context is the parent of the handlers' contexts: they end when it
	// ends, or when the Conn is closed. Default context.Background().
	Context context.Context
	// WriteTimeout, when set, fails a line the peer has not taken within
	// it (or at most half as long again: a timer looks every half
	// timeout), whatever the writer, deadlines or none: a peer that stops
	// reading then ends the connection, and the writer is closed when it
	// is an io.Closer, instead of blocking every sender for ever. Zero
	// waits as long as the peer takes.
	WriteTimeout time.Duration
}

// Conn is one bidirectional JSON-RPC connection over a line stream: both
// sides may send requests, notifications and batches. It owns a reader
// goroutine and the goroutines serving the peer's messages; Close stops
// them and Wait waits for them.
type Conn struct {
	opts   Options
	limits limits
	lines  *LineReader
	layout layout    // where the messages of the line read are
	closer io.Closer // the reader, when closing it stops reading
	out    lineWriter
	state  connState
	// noteReady wakes the notification server; one pending is enough.
	noteReady chan struct{}

	serveCtx    context.Context // the context of handlers, ended by Close
	stopServing context.CancelFunc
	serving     sync.WaitGroup // request handlers and the notification server
	done        chan struct{}  // closed when reading has stopped
	doneOnce    sync.Once
	// deadliner interrupts a blocked read of the stream, nil when it
	// cannot be: callers then never read their own answers (token.go).
	deadliner readDeadliner
	closeOnce sync.Once // closes the reader once
	closeErr  error     // the error of that close
}

// NewConn starts a connection reading r and writing w. Options.Bind, when
// set, is called before the reader starts.
func NewConn(r io.Reader, w io.Writer, opts Options) *Conn {
	if opts.LateMemory == 0 {
		opts.LateMemory = DefaultLateMemory
	}
	c := &Conn{
		opts:      opts,
		limits:    newLimits(opts),
		lines:     NewLineReader(r, opts.MaxLine),
		noteReady: make(chan struct{}, 1),
		done:      make(chan struct{}),
	}
	c.out = lineWriter{w: w, max: c.limits.writeLine}
	if opts.WriteTimeout > 0 {
		c.out.watch = newWriteWatch(opts.WriteTimeout, c.writeStuck)
	}
	c.state.init(opts.LateMemory)
	c.closer, _ = r.(io.Closer)
	c.deadliner = interruptible(r)
	c.state.startReader()
	parent := opts.Context
	if parent == nil {
		parent = context.Background()
	}
	c.serveCtx, c.stopServing = context.WithCancel(parent)
	if opts.Bind != nil {
		opts.Bind(c)
	}
	if opts.Handle != nil {
		c.serving.Go(c.serveNotifications)
	}
	go c.readLoop()
	return c
}

// Close stops the connection: calls under way fail with ErrClosed at once,
// handlers' contexts end, nothing more is written, answers still owed are
// dropped, and the reader is closed when it is an io.Closer, which stops
// the reading goroutine. Close does not wait; Wait does. It returns the
// error of closing the reader.
func (c *Conn) Close() error {
	c.end(ending{calls: ErrClosed, stopped: true})
	c.closeReader() // waits for a close under way elsewhere
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
func (c *Conn) Ended() (ended bool) {
	c.state.update(func(s *connState) { ended = s.end.calls != nil })
	return ended
}

// Err returns why the connection ended: nil for the end of the peer's
// stream or for Close, the read or write error otherwise.
func (c *Conn) Err() (err error) {
	c.state.update(func(s *connState) { err = s.end.cause })
	return err
}

// end is the one way the connection ends, step by step: the end of the
// peer's stream fails the calls but keeps writing, so that handlers still
// answer a peer that closed its side after sending its requests; Close and
// a failed write stop everything. Each effect happens once.
func (c *Conn) end(e ending) {
	var stopped, idle bool
	c.state.update(func(s *connState) {
		stopped = s.endWith(e)
		idle = stopped && !s.token.held // nobody reads to see the end
	})
	if !stopped {
		return
	}
	if idle {
		c.stopReading()
	}
	c.out.close(c.endError())
	c.stopServing()
	c.closeReader()
}

// endError is the error calls get once the connection has ended.
func (c *Conn) endError() (err error) {
	c.state.update(func(s *connState) { err = s.end.calls })
	return err
}

// closeReader closes the reader once, if it can be closed.
func (c *Conn) closeReader() {
	c.closeOnce.Do(func() {
		if c.closer != nil {
			c.closeErr = c.closer.Close()
		}
	})
}

// writeStuck ends the connection whose peer took no line within
// WriteTimeout, and closes the writer, which ends the write it blocks.
func (c *Conn) writeStuck(err error) {
	c.fail(err)
	if closer, ok := c.out.w.(io.Closer); ok {
		closer.Close()
	}
}

// fail stops the connection after a write error.
func (c *Conn) fail(err error) {
	c.end(ending{calls: fmt.Errorf("%w: %w", ErrClosed, err), cause: err, stopped: true})
}

// event reports e to the owner.
func (c *Conn) event(e Event) {
	if c.opts.OnEvent != nil {
		c.opts.OnEvent(e)
	}
}
