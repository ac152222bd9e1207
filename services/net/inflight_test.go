package net

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/vocab/proto"
	"github.com/google/go-cmp/cmp"
)

// sizeServer answers a body of n bytes of the letter given, ?n=&c=.
func sizeServer(t *testing.T) *httptest.Server {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscanf(r.URL.Query().Get("n"), "%d", &n)
		c := r.URL.Query().Get("c")
		if c == "" {
			c = "a"
		}
		w.Write(bytes.Repeat([]byte(c[:1]), n))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestFetchCarriesAtMostFourMiB: with limits.netMaxBytes at its 64 MiB
// ceiling, net/fetch answers a body of 4 MiB and refuses one byte more
// with a sentence that sends it to net/stream, which delivers it.
func TestFetchCarriesAtMostFourMiB(t *testing.T) {
	srv := sizeServer(t)
	peer := newPeer()
	c := accountConfig(srv)
	c.Limits, c.Peer = manifest.Limits{NetMaxBytes: MaxMaxBytes}, peer
	s := newService(t, c)
	if r := mustFetch(t, s, proto.FetchParams{URL: fmt.Sprintf("%s/?n=%d", srv.URL, MaxFetchBytes)}); len(r.Body) != MaxFetchBytes {
		t.Errorf("a body of MaxFetchBytes: %d bytes", len(r.Body))
	}
	url := fmt.Sprintf("%s/?n=%d", srv.URL, MaxFetchBytes+1)
	_, err := call(t, s, "net/fetch", proto.FetchParams{URL: url})
	want := refusal{-32004, url + ": the body is over the 4194304 bytes a net/fetch answer carries (limits.netMaxBytes 67108864 holds for net/stream): read it through net/stream"}
	if diff := cmp.Diff(want, refusalOf(err)); diff != "" {
		t.Errorf("one byte over (-want +got):\n%s", diff)
	}
	openStream(t, s, url)
	got := 0
	for n := peer.next(t); n.Method != "net/end"; n = peer.next(t) {
		got += len(n.Params.(proto.NetChunkParams).Data)
	}
	if got != MaxFetchBytes+1 {
		t.Errorf("net/stream delivered %d bytes, want %d", got, MaxFetchBytes+1)
	}
}

// TestFetchAnswerFitsALine: a body of MaxFetchBytes made of the
// characters JSON escapes longest still fits the 8 MiB answer line.
func TestFetchAnswerFitsALine(t *testing.T) {
	srv := sizeServer(t)
	c := accountConfig(srv)
	c.Limits = manifest.Limits{NetMaxBytes: MaxMaxBytes}
	s := newService(t, c)
	for _, ch := range []string{"<", "%01"} {
		got, err := call(t, s, "net/fetch", proto.FetchParams{URL: fmt.Sprintf("%s/?n=%d&c=%s", srv.URL, MaxFetchBytes, ch)})
		if err != nil {
			t.Fatalf("%q: %v", ch, err)
		}
		line, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		if len(line) >= 8<<20 {
			t.Errorf("%q: the answer is %d bytes, past the 8 MiB line", ch, len(line))
		}
	}
}

// TestFetchBytesInFlight: a fetch that holds some of the instance's bytes
// in flight and finds no room for more fails with the sentence of the
// limit; one that holds none waits for room, and gets it when others give
// theirs back.
func TestFetchBytesInFlight(t *testing.T) {
	srv := sizeServer(t)
	clock := newClock()
	c := accountConfig(srv)
	c.AfterFunc = clock.AfterFunc
	s := newService(t, c)
	waiting := make(chan struct{}, 2)
	s.waitsForRoom = func() { waiting <- struct{}{} }
	// The other fetches under way hold all but 40 KiB.
	if !s.inFlight.TryAcquire(MaxBytesInFlight - 40<<10) {
		t.Fatal("the semaphore is not empty")
	}
	url := fmt.Sprintf("%s/?n=%d", srv.URL, 200<<10)
	_, err := call(t, s, "net/fetch", proto.FetchParams{URL: url})
	if diff := cmp.Diff(refusal{-32004, url + ": " + noRoomSentence()}, refusalOf(err)); diff != "" {
		t.Errorf("no room (-want +got):\n%s", diff)
	}
	<-clock.created // that fetch's time limit, stopped
	// All is held: the next fetch waits, and its time limit ends the wait.
	if !s.inFlight.TryAcquire(40 << 10) {
		t.Fatal("the failed fetch kept its bytes")
	}
	done := make(chan error, 1)
	go func() {
		_, err := call(t, s, "net/fetch", proto.FetchParams{URL: url})
		done <- err
	}()
	limit := <-clock.created
	<-waiting
	limit.fire()
	if got, want := refusalOf(<-done).Reason, url+": no room within 10000 ms: "+noRoomSentence(); got != want {
		t.Errorf("waited past its limit: %q, want %q", got, want)
	}
	// Room given back while one waits: it completes.
	go func() {
		_, err := call(t, s, "net/fetch", proto.FetchParams{URL: url})
		done <- err
	}()
	<-clock.created
	<-waiting
	s.inFlight.Release(MaxBytesInFlight)
	if err := <-done; err != nil {
		t.Errorf("after room was given back: %v", err)
	}
	if !s.inFlight.TryAcquire(MaxBytesInFlight) {
		t.Error("a fetch kept bytes after its answer")
	}
}

func TestJSONTextLen(t *testing.T) {
	for _, text := range []string{"", "plain", `"\`, "<a&b>", "\x00\x1f\n\r\t", "é\u2028\u2029€", strings.Repeat("<", 100)} {
		raw, _ := json.Marshal(text)
		if got := jsonTextLen([]byte(text)); got != len(raw)-2 {
			t.Errorf("jsonTextLen(%q) = %d, encoding/json writes %d", text, got, len(raw)-2)
		}
	}
}
