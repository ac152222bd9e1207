package net

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/jsonrpc"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/vocab/proto"
	"github.com/google/go-cmp/cmp"
)

// chunkServer sends a chunk each time the test asks, and ends when the
// test closes the channel.
func chunkServer(t *testing.T, next <-chan string) *httptest.Server {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Stream", "yes")
		w.WriteHeader(http.StatusAccepted)
		w.(http.Flusher).Flush()
		for chunk := range next {
			fmt.Fprint(w, chunk)
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func openStream(t *testing.T, s *Service, url string) proto.StreamResult {
	t.Helper()
	got, err := call(t, s, "net/stream", proto.FetchParams{URL: url})
	if err != nil {
		t.Fatalf("net/stream: %v", err)
	}
	// As the connection does: the answer is marshalled, written, then
	// told it was (jsonrpc.AnswerSent), which lets the chunks go.
	raw, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if sent, ok := got.(jsonrpc.AnswerSent); ok {
		sent.AnswerSent()
	}
	var r proto.StreamResult
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestStreamChunks: the answer comes with the headers, then each chunk,
// then net/end without an error; the silence timer restarts at each chunk.
func TestStreamChunks(t *testing.T) {
	next := make(chan string)
	srv := chunkServer(t, next)
	peer, clock := newPeer(), newClock()
	c := accountConfig(srv)
	c.Peer, c.AfterFunc = peer, clock.AfterFunc
	s := newService(t, c)
	r := openStream(t, s, srv.URL+"/s")
	silence := <-clock.created
	if r.Status != http.StatusAccepted || r.Headers["X-Stream"] != "yes" || r.Stream != 1 {
		t.Errorf("answer %+v", r)
	}
	for _, chunk := range []string{"one", "two"} {
		next <- chunk
		got := peer.next(t)
		want := note{"net/chunk", proto.NetChunkParams{Stream: 1, Data: chunk, BodyEncoding: proto.BodyEncodingUTF8}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	}
	close(next)
	if diff := cmp.Diff(note{"net/end", proto.NetEndParams{Stream: 1}}, peer.next(t)); diff != "" {
		t.Errorf("end (-want +got):\n%s", diff)
	}
	if n := silence.resetCount(); n != 2 {
		t.Errorf("the silence timer restarted %d times, want 2 (once per chunk)", n)
	}
}

// TestStreamSilence: a gap of silence past the limit ends the stream.
func TestStreamSilence(t *testing.T) {
	next := make(chan string)
	srv := chunkServer(t, next)
	defer close(next)
	peer, clock := newPeer(), newClock()
	c := accountConfig(srv)
	c.Peer, c.AfterFunc = peer, clock.AfterFunc
	s := newService(t, c)
	openStream(t, s, srv.URL+"/s")
	silence := <-clock.created
	next <- "a"
	peer.next(t)
	silence.fire()
	want := note{"net/end", proto.NetEndParams{Stream: 1, Error: srv.URL + "/s: nothing received for 10000 ms"}}
	if diff := cmp.Diff(want, peer.next(t)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestStreamSizeCap: the limit is on the sum of the chunks; the chunk
// that passes it is not sent.
func TestStreamSizeCap(t *testing.T) {
	next := make(chan string)
	srv := chunkServer(t, next)
	defer close(next)
	peer := newPeer()
	c := accountConfig(srv)
	c.Peer, c.Limits = peer, manifest.Limits{NetMaxBytes: 5}
	s := newService(t, c)
	openStream(t, s, srv.URL+"/s")
	next <- "abc"
	peer.next(t)
	next <- "def"
	want := note{"net/end", proto.NetEndParams{Stream: 1, Error: srv.URL + "/s: the body is over the limit of 5 bytes"}}
	if diff := cmp.Diff(want, peer.next(t)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestStreamCancel: net/cancel ends the stream with net/end saying so; an
// unknown stream is refused.
func TestStreamCancel(t *testing.T) {
	next := make(chan string)
	srv := chunkServer(t, next)
	defer close(next)
	peer := newPeer()
	c := accountConfig(srv)
	c.Peer = peer
	s := newService(t, c)
	r := openStream(t, s, srv.URL+"/s")
	if _, err := call(t, s, "net/cancel", proto.StreamRef{Stream: r.Stream}); err != nil {
		t.Fatal(err)
	}
	got := peer.next(t)
	end, _ := got.Params.(proto.NetEndParams)
	if got.Method != "net/end" || !strings.HasSuffix(end.Error, "canceled by net/cancel") {
		t.Errorf("got %+v", got)
	}
	_, err := call(t, s, "net/cancel", proto.StreamRef{Stream: 99})
	if diff := cmp.Diff(refusal{-32602, "params.stream 99 is no stream under way"}, refusalOf(err)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestStreamRefusedLikeFetch: the same rules as net/fetch.
func TestStreamRefusedLikeFetch(t *testing.T) {
	s := newService(t, Config{Granted: manifest.Permissions{Network: []string{"slack.com"}}})
	_, err := call(t, s, "net/stream", proto.FetchParams{URL: "http://api.slack.com/x"})
	if diff := cmp.Diff(refusal{-32003, "http://api.slack.com/x: only https is allowed"}, refusalOf(err)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestCloseEndsStreams: Close ends a stream under way and waits for it.
func TestCloseEndsStreams(t *testing.T) {
	next := make(chan string)
	srv := chunkServer(t, next)
	defer close(next)
	c := accountConfig(srv)
	c.Peer = newPeer()
	s, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	openStream(t, s, srv.URL+"/s")
	s.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.streams) != 0 {
		t.Errorf("%d streams left after Close", len(s.streams))
	}
}

// TestStreamWaitsForItsAnswer: no chunk goes out before the answer that
// names the stream is written (the connection says so through
// jsonrpc.AnswerSent): not when it is only encoded, which a batch's answer
// or a busy writer may follow by a while.
func TestStreamWaitsForItsAnswer(t *testing.T) {
	next := make(chan string, 1)
	next <- "early"
	srv := chunkServer(t, next)
	defer close(next)
	peer := newPeer()
	c := accountConfig(srv)
	c.Peer = peer
	s := newService(t, c)
	got, err := call(t, s, "net/stream", proto.FetchParams{URL: srv.URL + "/s"})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-peer.notes:
		t.Fatalf("%s came before the answer was written", n.Method)
	default:
	}
	if _, err := json.Marshal(got); err != nil {
		t.Fatal(err)
	}
	select {
	case <-got.(streamAnswer).sent:
		t.Fatal("encoding the answer let the chunks go, before it was written")
	default:
	}
	got.(jsonrpc.AnswerSent).AnswerSent()
	if n := peer.next(t); n.Method != "net/chunk" {
		t.Errorf("got %s, want net/chunk", n.Method)
	}
}

// TestStreamLimit: 16 streams open at once, the 17th is refused with the
// sentence of the sockets' limit; once one ends, a new one opens.
func TestStreamLimit(t *testing.T) {
	next := make(chan string)
	srv := chunkServer(t, next)
	peer := newPeer()
	c := accountConfig(srv)
	c.Peer = peer
	s := newService(t, c)
	for range MaxStreams {
		openStream(t, s, srv.URL+"/s")
	}
	_, err := call(t, s, "net/stream", proto.FetchParams{URL: srv.URL + "/s"})
	if diff := cmp.Diff(refusal{-32003, "16 streams are open, the most a plugin may hold"}, refusalOf(err)); diff != "" {
		t.Errorf("17th stream (-want +got):\n%s", diff)
	}
	if _, err := call(t, s, "net/cancel", proto.StreamRef{Stream: 1}); err != nil {
		t.Fatal(err)
	}
	for n := peer.next(t); n.Method != "net/end"; n = peer.next(t) {
	}
	openStream(t, s, srv.URL+"/s")
	close(next)
}
