package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	"github.com/escouade-dev/escouade-plugin/host"
	"github.com/escouade-dev/escouade-plugin/internal/safetext"
	"github.com/escouade-dev/escouade-plugin/registry"
)

// streamBuffer is how many events wait for a slow page before its stream
// is ended; its script then connects again and reads the state afresh.
const streamBuffer = 256

// broker hands the state events to every open list or plugin page.
type broker struct {
	mu     sync.Mutex
	subs   map[chan []byte]struct{}
	done   chan struct{}
	closed bool
}

func newBroker() *broker {
	return &broker{subs: map[chan []byte]struct{}{}, done: make(chan struct{})}
}

func (b *broker) subscribe() (chan []byte, func()) {
	ch := make(chan []byte, streamBuffer)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		close(ch)
		return ch, func() {}
	}
	b.subs[ch] = struct{}{}
	return ch, func() { b.drop(ch) }
}

func (b *broker) drop(ch chan []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.subs[ch]; ok {
		delete(b.subs, ch)
		close(ch)
	}
}

// publish never blocks: it is called with a plugin's lock held. A page that
// cannot keep up loses its stream rather than hold the host.
func (b *broker) publish(msg []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.subs {
		select {
		case ch <- msg:
		default:
			delete(b.subs, ch)
			close(ch)
		}
	}
}

// publishList tells the pages that a plugin came or went.
func (b *broker) publishList() { b.publish(sse("list", "{}")) }

func (b *broker) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.closed = true
	close(b.done)
	for ch := range b.subs {
		close(ch)
	}
	b.subs = nil
}

// stateChanged is host.Options.OnState: quick, and never calls the
// plugin back.
func (s *Server) stateChanged(id string, st host.Status) {
	data, _ := json.Marshal(s.stateOf(id, st))
	s.states.publish(sse("state", string(data)))
}

// sse formats one server-sent event; data holds no line break (JSON).
func sse(event, data string) []byte {
	return fmt.Appendf(nil, "event: %s\ndata: %s\n\n", event, data)
}

// relay writes each event of ch to a stream as it comes, until ch closes
// or the page goes away.
func relay(w http.ResponseWriter, f http.Flusher, r *http.Request, ch <-chan []byte) {
	for {
		select {
		case msg, open := <-ch:
			if !open {
				return
			}
			w.Write(msg)
			f.Flush()
		case <-r.Context().Done():
			return
		}
	}
}

// startStream answers with an event stream, or false when the writer
// cannot flush.
func startStream(w http.ResponseWriter) (http.Flusher, bool) {
	f, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming is not supported here", http.StatusInternalServerError)
		return nil, false
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, "retry: 1000\n\n")
	f.Flush()
	return f, true
}

// streamStates follows every plugin's state: first the state of each now,
// read once subscribed, so that a change between the page and its stream
// is not missed; then each change as it happens, in order.
func (s *Server) streamStates(w http.ResponseWriter, r *http.Request) {
	ch, cancel := s.states.subscribe()
	defer cancel()
	reg, err := registry.Open(s.home)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	f, ok := startStream(w)
	if !ok {
		return
	}
	for _, en := range reg.List() {
		data, _ := json.Marshal(s.rowOf(en).State)
		w.Write(sse("state", string(data)))
	}
	f.Flush()
	relay(w, f, r, ch)
}

// streamJournal sends the last 500 lines of a plugin's journal ("reset"),
// then every new line ("line") as it is written.
func (s *Server) streamJournal(w http.ResponseWriter, r *http.Request) {
	_, rw, _, ok := s.installed(w, r)
	if !ok {
		return
	}
	if rw.Plugin == nil {
		notFound(w, rw.ID)
		return
	}
	follow := newJournalFollower()
	cancel := rw.Plugin.Journal().Subscribe(follow.add)
	defer cancel()
	tail, err := rw.Plugin.Journal().Tail(journalLines)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	follow.after(tail)
	f, ok := startStream(w)
	if !ok {
		return
	}
	data, _ := json.Marshal(safeLines(tail))
	w.Write(sse("reset", string(data)))
	f.Flush()
	for {
		select {
		case line, open := <-follow.lines:
			if !open {
				return
			}
			data, _ := json.Marshal(safetext.KeepTabs(line))
			w.Write(sse("line", string(data)))
			f.Flush()
		case <-r.Context().Done():
			return
		case <-s.states.done:
			return
		}
	}
}

// journalFollower buffers the lines a subscription gives and leaves out
// those the tail read meanwhile already holds.
type journalFollower struct {
	lines chan string

	mu      sync.Mutex
	seen    map[string]bool // the tail's last lines, until a newer one comes
	ready   bool
	pending []string
	closed  bool
}

func newJournalFollower() *journalFollower {
	return &journalFollower{lines: make(chan string, streamBuffer)}
}

// add is the journal subscriber: it must not block the journal's writer.
func (j *journalFollower) add(line string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.ready {
		j.pending = append(j.pending, line)
		return
	}
	j.send(line)
}

// after is called with the tail once read: what the subscription gave
// before (and gives later) that the tail holds is not sent twice.
func (j *journalFollower) after(tail []string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.seen = map[string]bool{}
	for _, l := range tail[max(0, len(tail)-streamBuffer):] {
		j.seen[l] = true
	}
	j.ready = true
	for _, l := range j.pending {
		j.send(l)
	}
	j.pending = nil
}

// send is called with mu held.
func (j *journalFollower) send(line string) {
	if j.closed {
		return
	}
	if j.seen != nil {
		if j.seen[line] {
			return
		}
		j.seen = nil // a line newer than the tail: no more overlap
	}
	select {
	case j.lines <- line:
	default:
		j.closed = true // too slow: the stream ends and the page reconnects
		close(j.lines)
	}
}

// safeLines escapes each journal line as the CLI's journal prints it.
func safeLines(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = safetext.KeepTabs(l)
	}
	return out
}
