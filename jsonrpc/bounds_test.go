package jsonrpc

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// heapWatch records the highest heap seen above where it started.
type heapWatch struct {
	mu    sync.Mutex
	start uint64
	peak  uint64
}

func newHeapWatch() *heapWatch {
	runtime.GC()
	w := &heapWatch{}
	w.start = w.heap()
	w.peak = w.start
	return w
}

func (w *heapWatch) heap() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// sample notes the heap now.
func (w *heapWatch) sample() {
	h := w.heap()
	w.mu.Lock()
	w.peak = max(w.peak, h)
	w.mu.Unlock()
}

// check fails t when the heap grew by more than limit at its peak.
func (w *heapWatch) check(t *testing.T, what string, limit uint64) {
	t.Helper()
	w.sample()
	w.mu.Lock()
	defer w.mu.Unlock()
	if grew := w.peak - min(w.peak, w.start); grew > limit {
		t.Errorf("%s: the heap grew by %d MiB at its peak, want at most %d MiB", what, grew>>20, limit>>20)
	}
}

// eventWaiter hands the events of one kind to a channel, dropping the
// others, so that tests can wait for a bound to bite.
func eventWaiter(kind EventKind) (func(Event), chan Event) {
	ch := make(chan Event, 64)
	return func(e Event) {
		if e.Kind != kind {
			return
		}
		select {
		case ch <- e:
		default:
		}
	}, ch
}

// With MaxRequests served at once, the reader stops reading: a line sent
// after waits until a request is answered.
func TestRequestBoundPausesReading(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 10)
	notes := make(chan *Message, 10)
	onEvent, bites := eventWaiter(EventBound)
	p := newPeer(t, Options{MaxRequests: 2, OnEvent: onEvent, Handle: func(_ context.Context, m *Message) (any, error) {
		switch m.Method {
		case "hold":
			started <- struct{}{}
			<-release
		case "note":
			notes <- m
		}
		return nil, nil
	}})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"hold"}`)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"hold"}`)
	<-started
	<-started
	go p.send(`{"jsonrpc":"2.0","method":"note"}`)
	if got, want := (<-bites).Text, "reading paused: 2 requests served at once, the limit"; got != want {
		t.Errorf("event %q, want %q", got, want)
	}
	if len(notes) != 0 {
		t.Fatal("a line was read while the bound bit")
	}
	release <- struct{}{}
	<-notes // read once a request was answered
	close(release)
	got := []string{canonical(p.next()), canonical(p.next())}
	want := []string{`{"jsonrpc":"2.0","id":1,"result":null}`, `{"jsonrpc":"2.0","id":2,"result":null}`}
	if diff := cmp.Diff(want, got, cmpSorted); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
}

// cmpSorted compares string slices in any order.
var cmpSorted = cmp.Transformer("sorted", func(in []string) []string {
	out := append([]string(nil), in...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
})

// floodPeer is a Conn whose peer writes through an io.Pipe, so that a
// Conn that stops reading blocks the peer's writes, as a full pipe does.
type floodPeer struct {
	conn    *Conn
	toConn  *io.PipeWriter
	fromOut *io.PipeReader
}

// newFloodPeer starts a Conn; when drain is set what it writes is read
// and discarded, else nobody ever reads it.
func newFloodPeer(t *testing.T, opts Options, drain bool) *floodPeer {
	connIn, toConn := io.Pipe()
	fromOut, connOut := io.Pipe()
	f := &floodPeer{conn: NewConn(connIn, connOut, opts), toConn: toConn, fromOut: fromOut}
	if drain {
		go io.Copy(io.Discard, fromOut)
	}
	t.Cleanup(func() {
		f.conn.Close()
		fromOut.Close() // unblocks a write nobody reads
		f.conn.Wait()
		toConn.Close()
	})
	return f
}

// flood writes lines to the Conn, many per write, until n are written or
// the Conn stops reading for good; done is closed then.
func (f *floodPeer) flood(n int, line func(i int) string) (done chan struct{}) {
	done = make(chan struct{})
	go func() {
		defer close(done)
		w := bufio.NewWriterSize(f.toConn, 256<<10)
		for i := range n {
			if _, err := w.WriteString(line(i) + "\n"); err != nil {
				return
			}
		}
		w.Flush()
	}()
	return done
}

// A million log notifications from a peer faster than their handler: the
// queue stays bounded, the reader pauses, and every one is served in
// order.
func TestNotificationFloodStaysBounded(t *testing.T) {
	const total = 1_000_000
	watch := newHeapWatch()
	onEvent, bites := eventWaiter(EventBound)
	var served atomic.Int64
	unblock := make(chan struct{})
	var outOfOrder atomic.Bool
	f := newFloodPeer(t, Options{OnEvent: onEvent, Handle: func(_ context.Context, m *Message) (any, error) {
		n := served.Add(1)
		if n == 1 {
			<-unblock // the flood piles up against the bound meanwhile
		}
		var want [32]byte
		if string(m.Params) != string(strconv.AppendInt(append(want[:0], `{"n":`...), n-1, 10))+"}" {
			outOfOrder.Store(true)
		}
		if n%100_000 == 0 {
			watch.sample()
		}
		return nil, nil
	}}, true)
	pad := strings.Repeat("p", 200)
	head := `{"jsonrpc":"2.0","method":"log","pad":"` + pad + `","params":{"n":`
	done := f.flood(total, func(i int) string {
		return head + strconv.Itoa(i) + "}}"
	})
	e := <-bites
	if want := "reading paused: 1024 notifications queued, the limit"; e.Text != want {
		t.Errorf("event %q, want %q", e.Text, want)
	}
	watch.sample()
	close(unblock)
	<-done
	f.toConn.Close()
	f.conn.Wait()
	if got := served.Load(); got != total {
		t.Errorf("%d notifications served, want %d", got, total)
	}
	if outOfOrder.Load() {
		t.Error("notifications were served out of order")
	}
	watch.check(t, "a million notifications", 64<<20)
}

// A batch of 2,000 requests whose answers are 250 KB each: the answer
// line stays under 8 MiB, the members past it get -32004, and the heap
// holds a bounded share of the 500 MB the answers add up to.
func TestHugeBatchAnswerStaysBounded(t *testing.T) {
	const members = 2000
	big := json250KB()
	watch := newHeapWatch()
	var tooLong atomic.Int64
	var answered atomic.Int64
	out := make(chan string, 1)
	connIn, toConn := io.Pipe()
	fromOut, connOut := io.Pipe()
	c := NewConn(connIn, connOut, Options{
		OnEvent: func(e Event) {
			if e.Kind == EventAnswerTooLong {
				tooLong.Add(1)
			}
		},
		Handle: func(context.Context, *Message) (any, error) {
			if answered.Add(1)%100 == 0 {
				watch.sample()
			}
			return big, nil
		},
	})
	defer func() {
		c.Close()
		fromOut.Close()
		c.Wait()
	}()
	go func() {
		lines := NewLineReader(fromOut, 16<<20)
		line, _, _ := lines.Next()
		out <- string(line)
	}()
	var b strings.Builder
	b.WriteByte('[')
	for i := range members {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"files/read","params":{"path":"big.txt"}}`, i)
	}
	b.WriteString("]\n")
	go io.WriteString(toConn, b.String())
	line := <-out
	if len(line) > DefaultMaxLine {
		t.Errorf("an answer line of %d bytes, past 8 MiB", len(line))
	}
	refused := strings.Count(line, `"the answer would exceed the 8 MiB line limit"`)
	fit := strings.Count(line, `"result":`)
	if refused+fit != members || refused == 0 || fit == 0 {
		t.Errorf("%d answers fit and %d were refused, want %d in all with some of each", fit, refused, members)
	}
	if got := tooLong.Load(); got != int64(refused) {
		t.Errorf("%d EventAnswerTooLong for %d refused answers", got, refused)
	}
	watch.check(t, "a batch of 2,000 answers of 250 KB", 128<<20)
	toConn.Close()
}

// json250KB is a 250 KB JSON string, the answer of a files/read.
func json250KB() json.RawMessage {
	return json.RawMessage(`"` + strings.Repeat("w", 250<<10) + `"`)
}

// A peer that sends batches of 8 MiB and never reads its input: the
// answers cannot be written, the Conn stops reading, and its goroutines
// and heap stay bounded.
func TestPeerThatNeverReadsStaysBounded(t *testing.T) {
	watch := newHeapWatch()
	goroutines := runtime.NumGoroutine()
	onEvent, bites := eventWaiter(EventBound)
	echo := testHandler(make(chan *Message, 1))
	f := newFloodPeer(t, Options{OnEvent: onEvent, Handle: func(ctx context.Context, m *Message) (any, error) {
		return echo(ctx, m)
	}}, false)
	member := `{"jsonrpc":"2.0","id":%d,"method":"echo","params":["` + strings.Repeat("q", 1000) + `"]}`
	var b strings.Builder
	b.WriteByte('[')
	for i := 0; b.Len()+len(member)+8 < DefaultMaxLine; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, member, i)
	}
	b.WriteByte(']')
	batch := b.String()
	done := f.flood(10, func(int) string { return batch })
	e := <-bites
	if !strings.HasPrefix(e.Text, "reading paused: ") {
		t.Errorf("event %q, want a pause", e.Text)
	}
	watch.check(t, "batches of 8 MiB to a peer that never reads", 256<<20)
	if n := runtime.NumGoroutine() - goroutines; n > DefaultMaxRequests+16 {
		t.Errorf("%d more goroutines, want at most %d", n, DefaultMaxRequests+16)
	}
	select {
	case <-done:
		t.Error("the peer wrote all its batches though the Conn held more than its bound")
	default:
	}
	f.conn.Close()
	f.fromOut.Close()
	f.toConn.CloseWithError(io.ErrClosedPipe)
	<-done
}

// The bytes of a request's line count while it is served: past MaxHeld
// the reader waits for them to be given back.
func TestHeldBytesBoundPausesReading(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	notes := make(chan *Message, 1)
	onEvent, bites := eventWaiter(EventBound)
	p := newPeer(t, Options{MaxHeld: 1000, OnEvent: onEvent, Handle: func(_ context.Context, m *Message) (any, error) {
		switch m.Method {
		case "hold":
			started <- struct{}{}
			<-release
		case "note":
			notes <- m
		}
		return nil, nil
	}})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"hold","params":["` + strings.Repeat("h", 1200) + `"]}`)
	<-started
	go p.send(`{"jsonrpc":"2.0","method":"note"}`)
	if got, want := (<-bites).Text, "reading paused: 1000 bytes held for requests, answers and notifications, the limit"; got != want {
		t.Errorf("event %q, want %q", got, want)
	}
	if len(notes) != 0 {
		t.Fatal("a line was read while the bound bit")
	}
	close(release)
	<-notes
	if got, want := p.next(), `{"jsonrpc":"2.0","id":1,"result":null}`; got != want {
		t.Errorf("answer %s, want %s", got, want)
	}
}

func TestBoundReportsThinOut(t *testing.T) {
	var reported []int
	for n := 1; n <= 40; n++ {
		if worthReporting(n) {
			reported = append(reported, n)
		}
	}
	if diff := cmp.Diff([]int{1, 2, 4, 8, 16, 32}, reported); diff != "" {
		t.Errorf("bites reported (-want +got):\n%s", diff)
	}
	l := newLimits(Options{})
	if got, want := l.biteText(boundNotes, 8), "reading paused: 1024 notifications queued, the limit (8 times so far)"; got != want {
		t.Errorf("biteText = %q, want %q", got, want)
	}
}

func TestFormatSize(t *testing.T) {
	tests := []struct {
		n    int
		want string
	}{
		{8 << 20, "8 MiB"}, {16 << 20, "16 MiB"}, {1 << 10, "1 KiB"}, {300, "300 bytes"}, {1536, "1536 bytes"}, {3 << 10, "3 KiB"},
	}
	for _, tt := range tests {
		if got := formatSize(tt.n); got != tt.want {
			t.Errorf("formatSize(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

// A pause is counted once, however often the reader is woken while it
// lasts: the second pause is reported as the second.
func TestBoundCountsPausesNotWakeUps(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 4)
	notes := make(chan *Message, 4)
	onEvent, bites := eventWaiter(EventBound)
	p := newPeer(t, Options{MaxRequests: 2, OnEvent: onEvent, Handle: func(_ context.Context, m *Message) (any, error) {
		switch m.Method {
		case "hold":
			started <- struct{}{}
			<-release
		case "note":
			notes <- m
		}
		return nil, nil
	}})
	pause := func() string {
		p.send(`{"jsonrpc":"2.0","id":1,"method":"hold"}`)
		p.send(`{"jsonrpc":"2.0","id":2,"method":"hold"}`)
		<-started
		<-started
		go p.send(`{"jsonrpc":"2.0","method":"note"}`)
		text := (<-bites).Text
		for range 20 { // each change of the state wakes the reader
			p.conn.state.update(func(*connState) {})
		}
		release <- struct{}{}
		release <- struct{}{}
		<-notes
		p.next()
		p.next()
		return text
	}
	first, second := pause(), pause()
	want := "reading paused: 2 requests served at once, the limit"
	if first != want || second != want+" (2 times so far)" {
		t.Errorf("events %q then %q, want %q then the same (2 times so far)", first, second, want)
	}
}
