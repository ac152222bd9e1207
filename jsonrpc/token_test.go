package jsonrpc

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// osPeer is a Conn over os.Pipe pairs, whose reads can be interrupted, so
// that callers read their own answers; the test plays the peer.
type osPeer struct {
	conn   *Conn
	toConn *os.File // what the peer writes
	lines  *LineReader
}

func newOSPeer(t *testing.T, opts Options) *osPeer {
	connIn, toConn, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	fromConn, connOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &osPeer{conn: NewConn(connIn, connOut, opts), toConn: toConn, lines: NewLineReader(fromConn, 0)}
	t.Cleanup(func() {
		// The peer's end first: a read under way ends at the end of the
		// pipe. (Closing the end being read while a read waits is not
		// interrupted everywhere: wine waits for the read.)
		toConn.Close()
		p.conn.Close()
		connOut.Close()
		p.conn.Wait()
		fromConn.Close()
	})
	return p
}

// warm makes one call and answers it, after which the background reader
// leaves the token to callers.
func (p *osPeer) warm(t *testing.T) {
	t.Helper()
	call := p.conn.Go(context.Background(), "warm", nil)
	id := DecodeLine([]byte(p.next(t))).Items[0].Msg.ID
	p.send(t, `{"jsonrpc":"2.0","id":`+id.String()+`,"result":0}`)
	if _, err := call.Wait(); err != nil {
		t.Fatal(err)
	}
}

func (p *osPeer) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(p.toConn, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

func (p *osPeer) next(t *testing.T) string {
	t.Helper()
	line, _, err := p.lines.Next()
	if err != nil {
		t.Fatal(err)
	}
	return string(line)
}

// A caller reading its own answer still serves what else comes on the
// line stream: another caller's answer, a notification, a request.
func TestCallerReadingServesTheRest(t *testing.T) {
	notes := make(chan *Message, 1)
	p := newOSPeer(t, Options{Handle: testHandler(notes)})
	p.warm(t)
	ctx := context.Background()
	first := p.conn.Go(ctx, "first", nil)
	second := p.conn.Go(ctx, "second", nil)
	p.next(t)
	p.next(t)
	done := make(chan error, 1)
	go func() {
		_, err := second.Wait()
		done <- err
	}()
	p.send(t, `{"jsonrpc":"2.0","method":"note","params":[1]}`)
	p.send(t, `{"jsonrpc":"2.0","id":"peer","method":"echo","params":[2]}`)
	if got, want := p.next(t), `{"jsonrpc":"2.0","id":"peer","result":[2]}`; got != want {
		t.Errorf("answer to the peer %s, want %s", got, want)
	}
	<-notes
	p.send(t, `{"jsonrpc":"2.0","id":3,"result":"two"}`)
	if err := <-done; err != nil {
		t.Errorf("second call: %v", err)
	}
	p.send(t, `{"jsonrpc":"2.0","id":2,"result":"one"}`)
	if res, err := first.Wait(); err != nil || string(res) != `"one"` {
		t.Errorf("first call = %s, %v", res, err)
	}
}

// A delay kept by the connection's timer interrupts a caller blocked in
// its own read; a half-read line is not lost by the interruption.
func TestDeadlineInterruptsACallerReading(t *testing.T) {
	p := newOSPeer(t, Options{})
	p.warm(t)
	call := p.conn.GoTimeout(context.Background(), "slow", nil, 50*time.Millisecond)
	p.next(t)
	io.WriteString(p.toConn, `{"jsonrpc":"2.0","id":3,`) // the rest comes after the deadline
	if _, err := call.Wait(); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait = %v, want a deadline error", err)
	}
	next := p.conn.Go(context.Background(), "next", nil)
	p.next(t)
	p.send(t, `"result":"second"}`)
	if res, err := next.Wait(); err != nil || string(res) != `"second"` {
		t.Errorf("the call after = %s, %v; want the line finished after the interruption", res, err)
	}
}

// The end of a caller's context interrupts its read too.
func TestContextInterruptsACallerReading(t *testing.T) {
	p := newOSPeer(t, Options{})
	p.warm(t)
	ctx, cancel := context.WithCancel(context.Background())
	call := p.conn.Go(ctx, "stuck", nil)
	p.next(t)
	go cancel()
	if _, err := call.Wait(); !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "stuck") {
		t.Errorf("Wait = %v, want context.Canceled naming the call", err)
	}
}

// Between calls the background reader takes the token back: a request
// the peer sends while nobody calls is served.
func TestIdleConnectionStillServesThePeer(t *testing.T) {
	p := newOSPeer(t, Options{Handle: testHandler(nil)})
	call := p.conn.Go(context.Background(), "once", nil)
	p.next(t)
	p.send(t, `{"jsonrpc":"2.0","id":1,"result":1}`)
	if _, err := call.Wait(); err != nil {
		t.Fatal(err)
	}
	p.send(t, `{"jsonrpc":"2.0","id":"idle","method":"echo","params":[3]}`)
	if got, want := p.next(t), `{"jsonrpc":"2.0","id":"idle","result":[3]}`; got != want {
		t.Errorf("answer %s, want %s", got, want)
	}
}

// The end of the peer's stream while nobody reads is still seen.
func TestIdleConnectionSeesTheEnd(t *testing.T) {
	p := newOSPeer(t, Options{})
	call := p.conn.Go(context.Background(), "once", nil)
	p.next(t)
	p.send(t, `{"jsonrpc":"2.0","id":1,"result":1}`)
	if _, err := call.Wait(); err != nil {
		t.Fatal(err)
	}
	p.toConn.Close()
	<-p.conn.Done()
	if _, err := p.conn.Call(context.Background(), "after", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("a call after the end = %v, want ErrClosed", err)
	}
}
