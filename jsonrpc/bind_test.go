package jsonrpc

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// A handler reaches its Conn through Bind, which runs before the first
// line is read: it can notify the peer from the handler itself.
func TestBindGivesHandlersTheirConn(t *testing.T) {
	var bound *Conn
	p := newPeer(t, Options{
		Bind: func(c *Conn) { bound = c },
		Handle: func(_ context.Context, m *Message) (any, error) {
			if err := bound.Notify("progress", map[string]int{"done": 1}); err != nil {
				return nil, err
			}
			return "ok", nil
		},
	})
	if bound != p.conn {
		t.Fatalf("Bind got %p, NewConn returned %p", bound, p.conn)
	}
	p.send(`{"jsonrpc":"2.0","id":1,"method":"work"}`)
	got := []string{p.next(), p.next()}
	want := []string{
		`{"jsonrpc":"2.0","method":"progress","params":{"done":1}}`,
		`{"jsonrpc":"2.0","id":1,"result":"ok"}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
}

// asyncPeer is a peer whose "later" requests are answered by the test
// through Respond; their ids arrive on the returned channel.
func asyncPeer(t *testing.T, opts Options) (*peer, chan ID) {
	later := make(chan ID, 100)
	echo := testHandler(make(chan *Message, 100))
	opts.Handle = func(ctx context.Context, m *Message) (any, error) {
		if m.Method == "later" {
			later <- m.ID
			return nil, ErrAsyncResponse
		}
		return echo(ctx, m)
	}
	return newPeer(t, opts), later
}

func TestRespondAnswersLater(t *testing.T) {
	p, later := asyncPeer(t, Options{})
	p.send(`{"jsonrpc":"2.0","id":"a","method":"later"}`)
	id := <-later
	p.sync() // nothing was written for "a" meanwhile
	if err := p.conn.Respond(id, map[string]int{"n": 2}, nil); err != nil {
		t.Fatalf("Respond: %v", err)
	}
	if got, want := p.next(), `{"jsonrpc":"2.0","id":"a","result":{"n":2}}`; got != want {
		t.Errorf("answer %s, want %s", got, want)
	}
	if err := p.conn.Respond(id, nil, nil); !errors.Is(err, ErrNotOwed) {
		t.Errorf("a second Respond = %v, want ErrNotOwed", err)
	}
	if err := p.conn.Respond(StringID("never"), nil, nil); !errors.Is(err, ErrNotOwed) {
		t.Errorf("Respond to an id never read = %v, want ErrNotOwed", err)
	}
}

func TestRespondWithError(t *testing.T) {
	p, later := asyncPeer(t, Options{})
	p.send(`{"jsonrpc":"2.0","id":4,"method":"later"}`)
	if err := p.conn.Respond(<-later, nil, ErrForbidden); err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":4,"error":{"code":-32003,"message":"The plugin may not reach it."}}`
	if got := p.next(); got != want {
		t.Errorf("answer %s, want %s", got, want)
	}
}

// A batch with a member answered later is answered by one array once that
// member is answered too.
func TestBatchWaitsForItsAsyncMember(t *testing.T) {
	p, later := asyncPeer(t, Options{})
	p.send(`[{"jsonrpc":"2.0","id":1,"method":"later"},{"jsonrpc":"2.0","id":2,"method":"echo","params":[2]},{"jsonrpc":"2.0","method":"note"}]`)
	id := <-later
	p.sync() // the echo is answered, but the batch waits
	if err := p.conn.Respond(id, "done", nil); err != nil {
		t.Fatal(err)
	}
	want := canonical(`[{"jsonrpc":"2.0","id":1,"result":"done"},{"jsonrpc":"2.0","id":2,"result":[2]}]`)
	if got := canonical(p.next()); got != want {
		t.Errorf("batch answer %s, want %s", got, want)
	}
}

// Requests that share an id are answered by Respond in the order read.
func TestRespondToSharedIDsInOrder(t *testing.T) {
	p, later := asyncPeer(t, Options{})
	p.send(`{"jsonrpc":"2.0","id":7,"method":"later","params":[1]}`)
	p.send(`{"jsonrpc":"2.0","id":7,"method":"later","params":[2]}`)
	id := <-later
	<-later
	for _, result := range []string{"first", "second"} {
		if err := p.conn.Respond(id, result, nil); err != nil {
			t.Fatal(err)
		}
		if got, want := p.next(), `{"jsonrpc":"2.0","id":7,"result":"`+result+`"}`; got != want {
			t.Errorf("answer %s, want %s", got, want)
		}
	}
}

func TestRespondAfterClose(t *testing.T) {
	p, later := asyncPeer(t, Options{})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"later"}`)
	id := <-later
	p.conn.Close()
	if err := p.conn.Respond(id, nil, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Respond after Close = %v, want ErrClosed", err)
	}
}

// A handler's panic answers -32603 and is reported; the connection goes
// on serving, notifications included.
func TestHandlerPanicAnswersInternalError(t *testing.T) {
	notes := make(chan *Message, 10)
	echo := testHandler(notes)
	p := newPeer(t, Options{Handle: func(ctx context.Context, m *Message) (any, error) {
		if strings.HasPrefix(m.Method, "panic") {
			panic("out of " + m.Method)
		}
		return echo(ctx, m)
	}})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"panic"}`)
	want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error: panic panicked"}}`
	if got := p.next(); got != want {
		t.Errorf("answer %s, want %s", got, want)
	}
	p.send(`{"jsonrpc":"2.0","method":"panic/note"}`)
	p.send(`{"jsonrpc":"2.0","method":"note","params":["after"]}`)
	<-notes // served after the panicking one
	p.send(`[{"jsonrpc":"2.0","id":2,"method":"panic/batch"}]`)
	want = `[{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Internal error: panic/batch panicked"}}]`
	if got := p.next(); got != want {
		t.Errorf("batch answer %s, want %s", got, want)
	}
	p.sync()
	events := p.takeEvents()
	for _, e := range events {
		if e.Kind != EventHandlerPanic || !strings.Contains(e.Stack, "TestHandlerPanicAnswersInternalError") {
			t.Errorf("event %v %q without the handler's stack", e.Kind, e.Text)
		}
	}
	ignoreStack := cmpopts.IgnoreFields(Event{}, "Stack")
	wantEvents := []Event{
		{Kind: EventHandlerPanic, Method: "panic", ID: rawID("1"), Text: "out of panic"},
		{Kind: EventHandlerPanic, Method: "panic/note", Text: "out of panic/note"},
		{Kind: EventHandlerPanic, Method: "panic/batch", ID: rawID("2"), Text: "out of panic/batch"},
	}
	if diff := cmp.Diff(wantEvents, events, idComparer, ignoreStack); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}
