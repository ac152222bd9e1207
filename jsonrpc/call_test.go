package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// connPair returns two Conns talking over net.Pipe, both serving
// testHandler into notes.
func connPair(t *testing.T, notes chan *Message) (a, b *Conn) {
	left, right := net.Pipe()
	a = NewConn(left, left, Options{Handle: testHandler(notes)})
	b = NewConn(right, right, Options{Handle: testHandler(notes)})
	t.Cleanup(func() {
		a.Close()
		b.Close()
		a.Wait()
		b.Wait()
	})
	return a, b
}

func TestCallBetweenConns(t *testing.T) {
	a, b := connPair(t, make(chan *Message, 1))
	tests := []struct {
		name     string
		conn     *Conn
		method   string
		params   any
		want     string
		wantCode int64
	}{
		{"value params", a, "echo", map[string]int{"x": 1}, `{"x":1}`, 0},
		{"raw params as is", b, "echo", json.RawMessage(`[1, "two"]`), `[1, "two"]`, 0},
		{"raw params on lines compacted", a, "echo", json.RawMessage("[1,\n2]"), `[1,2]`, 0},
		{"no params", b, "echo", nil, "null", 0},
		{"peer error", a, "forbidden", nil, "", ErrForbidden.Code},
		{"unknown method", b, "nope", nil, "", ErrMethodNotFound.Code},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.conn.Call(t.Context(), tc.method, tc.params)
			if tc.wantCode != 0 {
				var e *Error
				if !errors.As(err, &e) || e.Code != tc.wantCode {
					t.Fatalf("Call() error = %v, want code %d", err, tc.wantCode)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Errorf("Call() = %s, %v; want %s", got, err, tc.want)
			}
		})
	}
}

func TestCallRefusesInvalidParams(t *testing.T) {
	p := newPeer(t, Options{})
	tests := []struct {
		name   string
		params any
	}{
		{"invalid raw", json.RawMessage(`{"a":`)},
		{"unencodable", make(chan int)},
	}
	for _, tc := range tests {
		if _, err := p.conn.Call(t.Context(), "echo", tc.params); err == nil {
			t.Errorf("%s: Call() succeeded", tc.name)
		}
		if err := p.conn.Notify("echo", tc.params); err == nil {
			t.Errorf("%s: Notify() succeeded", tc.name)
		}
	}
	p.sync() // nothing was written
}

func TestReasonReachesCaller(t *testing.T) {
	a, _ := connPair(t, make(chan *Message, 1))
	_, err := a.Call(t.Context(), "forbidden", nil)
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrForbidden) {
		t.Fatalf("Call() error = %v, want ErrForbidden", err)
	}
	if got, want := e.Reason(), "example.org is not in permissions.network of dev.escouade.slack"; got != want {
		t.Errorf("Reason() = %q, want %q", got, want)
	}
}

func TestNotificationsServedInOrder(t *testing.T) {
	notes := make(chan *Message, 100)
	a, _ := connPair(t, notes)
	var want []string
	for i := range 100 {
		want = append(want, strconv.Itoa(i))
		if err := a.Notify("note", []int{i}); err != nil {
			t.Fatalf("Notify: %v", err)
		}
	}
	var got []string
	for range want {
		m := <-notes
		got = append(got, string(m.Params[1:len(m.Params)-1]))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("notifications (-want +got):\n%s", diff)
	}
}

func TestRequestIDsCountFromOne(t *testing.T) {
	p := newPeer(t, Options{})
	for want := int64(1); want <= 3; want++ {
		go p.conn.Call(context.Background(), "up", nil)
		m := p.nextMessage()
		if m.ID != Int64ID(want) {
			t.Errorf("request id %s, want %d", m.ID, want)
		}
		p.send(`{"jsonrpc":"2.0","id":` + m.ID.String() + `,"result":0}`)
	}
	// The ids of calls that started together are all different.
	go p.conn.Batch(context.Background(), []BatchCall{{Method: "x"}, {Method: "y"}})
	line := DecodeLine([]byte(p.next()))
	var ids []string
	for _, item := range line.Items {
		ids = append(ids, item.Msg.ID.String())
	}
	if diff := cmp.Diff([]string{"4", "5"}, ids); diff != "" {
		t.Errorf("batch ids (-want +got):\n%s", diff)
	}
}

func TestConcurrentCallsAnsweredOutOfOrder(t *testing.T) {
	p := newPeer(t, Options{})
	const calls = 20
	errs := make(chan error, calls)
	for i := range calls {
		go func() {
			want := fmt.Sprintf("[%d]", i)
			got, err := p.conn.Call(t.Context(), "echo", json.RawMessage(want))
			if err == nil && string(got) != want {
				err = fmt.Errorf("call %d got %s", i, got)
			}
			errs <- err
		}()
	}
	var requests []*Message
	for range calls {
		requests = append(requests, p.nextMessage())
	}
	for _, m := range slices.Backward(requests) {
		p.send(`{"jsonrpc":"2.0","id":` + m.ID.String() + `,"result":` + string(m.Params) + `}`)
	}
	for range calls {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// batchOutcome is a BatchResult made comparable.
type batchOutcome struct {
	Result string
	Code   int64
}

func outcomes(results []BatchResult) []batchOutcome {
	var out []batchOutcome
	for _, r := range results {
		o := batchOutcome{Result: string(r.Result)}
		var e *Error
		if errors.As(r.Err, &e) {
			o.Code = e.Code
		} else if r.Err != nil {
			o.Code = -1
		}
		out = append(out, o)
	}
	return out
}

var testBatch = []BatchCall{
	{Method: "echo", Params: []int{1}},
	{Method: "note", Params: []int{2}, Notify: true},
	{Method: "echo", Params: []int{3}},
	{Method: "forbidden"},
}

var testBatchOutcomes = []batchOutcome{{Result: "[1]"}, {}, {Result: "[3]"}, {Code: ErrForbidden.Code}}

func TestBatchBetweenConns(t *testing.T) {
	notes := make(chan *Message, 1)
	a, _ := connPair(t, notes)
	got := outcomes(a.Batch(t.Context(), testBatch))
	if diff := cmp.Diff(testBatchOutcomes, got); diff != "" {
		t.Errorf("Batch (-want +got):\n%s", diff)
	}
	if m := <-notes; string(m.Params) != "[2]" {
		t.Errorf("notification params %s, want [2]", m.Params)
	}
}

func TestBatchAnsweredByPeer(t *testing.T) {
	tests := []struct {
		name   string
		answer func(p *peer, answers []string)
	}{
		{"one array in reverse order", func(p *peer, answers []string) {
			slices.Reverse(answers)
			line := "["
			for i, a := range answers {
				if i > 0 {
					line += ","
				}
				line += a
			}
			p.send(line + "]")
		}},
		{"answer by answer", func(p *peer, answers []string) {
			for _, a := range answers {
				p.send(a)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPeer(t, Options{})
			results := make(chan []BatchResult, 1)
			go func() { results <- p.conn.Batch(t.Context(), testBatch) }()
			line := DecodeLine([]byte(p.next()))
			if !line.Batch || len(line.Items) != len(testBatch) {
				t.Fatalf("the Conn sent %+v, want a batch of %d", line, len(testBatch))
			}
			var answers []string
			for _, item := range line.Items {
				m := item.Msg
				switch {
				case m.IsNotification():
				case m.Method == "forbidden":
					answers = append(answers, `{"jsonrpc":"2.0","id":`+m.ID.String()+`,"error":{"code":-32003,"message":"no"}}`)
				default:
					answers = append(answers, `{"jsonrpc":"2.0","id":`+m.ID.String()+`,"result":`+string(m.Params)+`}`)
				}
			}
			tc.answer(p, answers)
			if diff := cmp.Diff(testBatchOutcomes, outcomes(<-results)); diff != "" {
				t.Errorf("Batch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBatchEdgeCases(t *testing.T) {
	p := newPeer(t, Options{})
	if got := p.conn.Batch(t.Context(), nil); len(got) != 0 {
		t.Errorf("empty Batch returned %v", got)
	}
	// A batch of notifications is sent and returns at once.
	got := outcomes(p.conn.Batch(t.Context(), []BatchCall{{Method: "a", Notify: true}, {Method: "b", Notify: true}}))
	if diff := cmp.Diff([]batchOutcome{{}, {}}, got); diff != "" {
		t.Errorf("notifications (-want +got):\n%s", diff)
	}
	if line, want := p.next(), `[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method":"b"}]`; line != want {
		t.Errorf("sent %s, want %s", line, want)
	}
	// A member whose params cannot be encoded is left out.
	results := make(chan []BatchResult, 1)
	go func() {
		results <- p.conn.Batch(t.Context(), []BatchCall{{Method: "bad", Params: func() {}}, {Method: "ok"}})
	}()
	m := DecodeLine([]byte(p.next()))
	if len(m.Items) != 1 || m.Items[0].Msg.Method != "ok" {
		t.Fatalf("sent %+v, want only the ok call", m)
	}
	p.send(`{"jsonrpc":"2.0","id":` + m.Items[0].Msg.ID.String() + `,"result":1}`)
	if diff := cmp.Diff([]batchOutcome{{Code: -1}, {Result: "1"}}, outcomes(<-results)); diff != "" {
		t.Errorf("Batch (-want +got):\n%s", diff)
	}
}

func TestLateAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPeer(t, Options{})
		ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
		defer cancel()
		errs := make(chan error, 1)
		go func() {
			_, err := p.conn.Call(ctx, "test/do", nil)
			errs <- err
		}()
		m := p.nextMessage()
		err := <-errs // the fake clock reaches the deadline
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Call() error = %v, want the deadline", err)
		}
		answer := `{"jsonrpc":"2.0","id":` + m.ID.String() + `,"result":"late"}`
		p.send(answer)
		p.send(answer)
		p.sync()
		want := []Event{
			{Kind: EventLate, Method: "test/do", ID: m.ID},
			{Kind: EventUnknownResponse, ID: m.ID},
		}
		if diff := cmp.Diff(want, p.takeEvents(), idComparer); diff != "" {
			t.Errorf("events (-want +got):\n%s", diff)
		}
	})
}

func TestLateMemoryForgetsOldest(t *testing.T) {
	p := newPeer(t, Options{LateMemory: 2})
	var ids []string
	for range 3 {
		call, _ := p.conn.startCall("m", 0)
		p.conn.abandon(call) // as a call whose ctx ended does
		ids = append(ids, strconv.FormatInt(call.id, 10))
	}
	for _, id := range ids {
		p.send(`{"jsonrpc":"2.0","id":` + id + `,"result":1}`)
	}
	p.sync()
	want := []Event{
		{Kind: EventUnknownResponse, ID: rawID(ids[0])},
		{Kind: EventLate, Method: "m", ID: rawID(ids[1])},
		{Kind: EventLate, Method: "m", ID: rawID(ids[2])},
	}
	if diff := cmp.Diff(want, p.takeEvents(), idComparer); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestBatchLateAnswers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPeer(t, Options{})
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		results := make(chan []BatchResult, 1)
		go func() { results <- p.conn.Batch(ctx, []BatchCall{{Method: "a"}, {Method: "b"}}) }()
		line := DecodeLine([]byte(p.next()))
		first := line.Items[0].Msg.ID.String()
		p.send(`{"jsonrpc":"2.0","id":` + first + `,"result":1}`)
		got := <-results
		if string(got[0].Result) != "1" || !errors.Is(got[1].Err, context.DeadlineExceeded) {
			t.Errorf("Batch() = %v, want a result then the deadline", outcomes(got))
		}
	})
}

func TestCallWithEndedContextSendsNothing(t *testing.T) {
	p := newPeer(t, Options{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := p.conn.Call(ctx, "echo", nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Call() error = %v, want context.Canceled", err)
	}
	got := outcomes(p.conn.Batch(ctx, []BatchCall{{Method: "a"}, {Method: "n", Notify: true}}))
	if diff := cmp.Diff([]batchOutcome{{Code: -1}, {}}, got); diff != "" {
		t.Errorf("Batch (-want +got):\n%s", diff)
	}
	p.sync()
}

// failingWriter fails every write.
type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }

func TestConnEnds(t *testing.T) {
	broken := errors.New("broken pipe")
	tests := []struct {
		name    string
		end     func(p *peer)
		wantErr error
	}{
		{"end of stream", func(p *peer) { p.toConn.Close() }, nil},
		{"read error", func(p *peer) { p.toConn.CloseWithError(broken) }, broken},
		{"Close", func(p *peer) { p.conn.Close() }, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := newPeer(t, Options{})
			errs := make(chan error, 2)
			go func() {
				_, err := p.conn.Call(context.Background(), "never/answered", nil)
				errs <- err
			}()
			go func() {
				r := p.conn.Batch(context.Background(), []BatchCall{{Method: "never/answered"}})
				errs <- r[0].Err
			}()
			p.next()
			p.next() // both calls are pending
			tc.end(p)
			for range 2 {
				if err := <-errs; !errors.Is(err, ErrClosed) {
					t.Errorf("pending call error = %v, want ErrClosed", err)
				}
			}
			<-p.conn.Done()
			if err := p.conn.Err(); !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Errorf("Err() = %v, want %v", err, tc.wantErr)
			}
			if _, err := p.conn.Call(context.Background(), "echo", nil); !errors.Is(err, ErrClosed) {
				t.Errorf("Call() after the end = %v, want ErrClosed", err)
			}
		})
	}
}

func TestCloseStopsWritingAndHandlers(t *testing.T) {
	p := newPeer(t, Options{})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"block"}`)
	p.sync() // the blocking handler runs
	p.conn.Close()
	if err := p.conn.Wait(); err != nil { // returns once the handler saw its context end
		t.Errorf("Wait() = %v, want nil", err)
	}
	if err := p.conn.Notify("n", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Notify() after Close = %v, want ErrClosed", err)
	}
	if err := p.conn.Close(); err != nil {
		t.Errorf("second Close() = %v", err)
	}
}

func TestEndOfStreamStillAnswers(t *testing.T) {
	// A peer may send its requests and close its side: the answers still go.
	p := newPeer(t, Options{})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}`)
	p.toConn.Close()
	if got, want := p.next(), `{"jsonrpc":"2.0","id":1,"result":[1]}`; got != want {
		t.Errorf("answer %s, want %s", got, want)
	}
}

func TestWriteFailureEndsConn(t *testing.T) {
	broken := errors.New("broken pipe")
	in, _ := io.Pipe()
	c := NewConn(in, failingWriter{broken}, Options{})
	defer c.Wait()
	_, err := c.Call(t.Context(), "echo", nil)
	if !errors.Is(err, ErrClosed) || !errors.Is(err, broken) {
		t.Errorf("Call() error = %v, want ErrClosed and the write error", err)
	}
	<-c.Done() // the reader was closed
	if err := c.Err(); !errors.Is(err, broken) {
		t.Errorf("Err() = %v, want %v", err, broken)
	}
	if err := c.Notify("n", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Notify() after a write failure = %v, want ErrClosed", err)
	}
}

func TestHandlerContextEndsOnClose(t *testing.T) {
	started := make(chan struct{})
	var once sync.Once
	p := startPeer(t, Options{Handle: func(ctx context.Context, m *Message) (any, error) {
		once.Do(func() { close(started) })
		<-ctx.Done()
		return nil, ctx.Err()
	}}, false)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"wait"}`)
	<-started
	p.conn.Close()
	p.conn.Wait()
	select {
	case line := <-p.lines:
		t.Errorf("the Conn wrote %s after Close", line)
	default:
	}
}

func TestEnded(t *testing.T) {
	p := newPeer(t, Options{})
	if p.conn.Ended() {
		t.Fatal("Ended() before the end")
	}
	p.toConn.Close()
	<-p.conn.Done()
	if !p.conn.Ended() {
		t.Error("Ended() = false after the end of the stream")
	}
}

// stuckWriter blocks every write until released, like a pipe whose reader
// has stopped reading.
type stuckWriter struct {
	entered chan struct{}
	release chan struct{}
}

func (w *stuckWriter) Write(p []byte) (int, error) {
	w.entered <- struct{}{}
	<-w.release
	return len(p), nil
}

func TestCloseDoesNotWaitForABlockedWrite(t *testing.T) {
	in, _ := io.Pipe()
	out := &stuckWriter{entered: make(chan struct{}), release: make(chan struct{})}
	c := NewConn(in, out, Options{})
	go c.Notify("n", nil)
	<-out.entered // the write is blocked
	if err := c.Close(); err != nil {
		t.Errorf("Close() = %v", err)
	}
	if _, err := c.Call(t.Context(), "m", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Call() after Close = %v, want ErrClosed", err)
	}
	close(out.release)
	c.Wait()
}
