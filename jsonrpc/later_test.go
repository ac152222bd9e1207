package jsonrpc

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"slices"
	"testing"
)

// Requests answered later hold no slot and no goroutine of the
// connection: far more than MaxRequests of them wait, and a request sent
// after them is still served at once; the goroutines do not grow with
// them. Each is then answered, in any order, and the slots count right:
// the connection serves the next requests as before.
func TestAnsweredLaterHoldsNoSlotNorGoroutine(t *testing.T) {
	const waiting = 3 * DefaultMaxRequests
	p, later := asyncPeer(t, Options{})
	p.sync() // the reader's goroutines are up
	goroutines := runtime.NumGoroutine()
	ids := make([]ID, 0, waiting)
	for i := range waiting {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"later"}`, i))
		ids = append(ids, <-later)
	}
	p.sync() // served although 192 requests wait for their answer
	// A waiting request that held a goroutine would add 192; a few may
	// come and go with the reader's hand-offs, whatever the load.
	if grown := runtime.NumGoroutine() - goroutines; grown > 16 {
		t.Errorf("%d more goroutines with %d requests answered later, want none per request", grown, waiting)
	}
	if events := p.takeEvents(); len(events) != 0 {
		t.Errorf("events %v, want no bound biting", events)
	}
	for k := len(ids) - 1; k >= 0; k-- {
		if err := p.conn.Respond(ids[k], k, nil); err != nil {
			t.Fatal(err)
		}
		if got, want := p.next(), fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%d}`, ids[k], k); got != want {
			t.Fatalf("answer %s, want %s", got, want)
		}
	}
	p.sync()
	waitState(p.conn, settled) // every count back to nothing, or the test times out
	p.sync()
}

// The requests answered later are bounded on their own: past MaxLater the
// connection stops reading, says so, and reads again once one is answered.
// The bound is looked at before each read, as every bound is: a line the
// reader was already waiting for when the second was handed off is still
// served, so the order of the two answers is not the point.
func TestMaxLaterPausesReading(t *testing.T) {
	onEvent, bites := eventWaiter(EventBound)
	p, later := asyncPeer(t, Options{MaxLater: 2, OnEvent: onEvent})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"later"}`)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"later"}`)
	first := <-later
	<-later
	waitState(p.conn, func(s *connState) bool { return s.later == 2 })
	sent := make(chan error, 1)
	go func() { // an io.Pipe write waits for its read: the pause holds it
		_, err := io.WriteString(p.toConn, `{"jsonrpc":"2.0","id":"after","method":"echo"}`+"\n")
		sent <- err
	}()
	e := <-bites
	if want := "reading paused: 2 requests waiting for an answer given later, the limit"; e.Text != want {
		t.Errorf("event %q, want %q", e.Text, want)
	}
	if err := p.conn.Respond(first, "one", nil); err != nil {
		t.Fatal(err)
	}
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	got := []string{p.next(), p.next()}
	slices.Sort(got)
	want := []string{`{"jsonrpc":"2.0","id":"after","result":null}`, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":"one"}`, first)}
	if !slices.Equal(got, want) {
		t.Errorf("lines %q, want %q", got, want)
	}
}

// waitState waits until cond holds of the connection's state: every
// change of it wakes the waiters.
func waitState(c *Conn, cond func(s *connState) bool) {
	s := &c.state
	s.mu.Lock()
	defer s.mu.Unlock()
	for !cond(s) {
		s.room.Wait()
	}
}

// A batch member answered later gives its slot back too; the batch's
// answer waits for it, and the counts come back to nothing.
func TestBatchMemberAnsweredLaterGivesItsSlotBack(t *testing.T) {
	p, later := asyncPeer(t, Options{MaxRequests: 1})
	p.send(`[{"jsonrpc":"2.0","id":1,"method":"later"},{"jsonrpc":"2.0","id":2,"method":"later"}]`)
	a, b := <-later, <-later // one slot served both, one after the other
	if err := p.conn.Respond(b, "b", nil); err != nil {
		t.Fatal(err)
	}
	if err := p.conn.Respond(a, "a", nil); err != nil {
		t.Fatal(err)
	}
	if got, want := canonical(p.next()), canonical(`[{"jsonrpc":"2.0","id":1,"result":"a"},{"jsonrpc":"2.0","id":2,"result":"b"}]`); got != want {
		t.Errorf("batch answer %s, want %s", got, want)
	}
	p.sync()
	waitState(p.conn, settled)
}

// settled reports a connection that holds nothing for the peer: no
// request served or waiting, no byte held. The last answer's counts are
// given back just after it is written.
func settled(s *connState) bool { return s.serving == 0 && s.later == 0 && s.held == 0 }

// A handler that calls the peer while every slot is taken still gets its
// answer: with a call of its own waiting, the connection reads past the
// request bound, queues the requests it reads there, and serves them in
// order as places free.
func TestReadsPastTheRequestBoundWhileItsCallsWait(t *testing.T) {
	var conn *Conn
	p := newPeer(t, Options{MaxRequests: 1, Bind: func(c *Conn) { conn = c }, Handle: func(ctx context.Context, m *Message) (any, error) {
		return conn.Call(ctx, "q", m.Params)
	}})
	p.send(`{"jsonrpc":"2.0","id":"a","method":"ask","params":["a"]}`)
	first := p.nextMessage() // the handler's call; its one slot is taken
	p.send(`{"jsonrpc":"2.0","id":"b","method":"ask","params":["b"]}`)
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":"for a"}`, first.ID))
	if got, want := p.next(), `{"jsonrpc":"2.0","id":"a","result":"for a"}`; got != want {
		t.Fatalf("answer %s, want %s", got, want)
	}
	second := p.nextMessage() // b, queued, is served now
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":"for b"}`, second.ID))
	if got, want := p.next(), `{"jsonrpc":"2.0","id":"b","result":"for b"}`; got != want {
		t.Fatalf("answer %s, want %s", got, want)
	}
	waitState(p.conn, settled)
}
