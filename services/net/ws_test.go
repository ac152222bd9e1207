package net

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/netguard"
	"github.com/escouade-dev/escouade-plugin/vocab/proto"
	"github.com/google/go-cmp/cmp"
)

// echoHandler echoes every message; "close" makes it close with 4000.
func echoHandler(t *testing.T) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{"chat"}})
		if err != nil {
			return
		}
		defer c.CloseNow()
		c.SetReadLimit(4 << 20)
		for {
			typ, data, err := c.Read(r.Context())
			if err != nil {
				return
			}
			if string(data) == "close" {
				c.Close(4000, "asked to")
				return
			}
			if string(data) == "big" {
				data = make([]byte, MaxMessageBytes+1)
			}
			if err := c.Write(r.Context(), typ, data); err != nil {
				return
			}
		}
	})
}

func wsURL(srv *httptest.Server) string {
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}

func openSocket(t *testing.T, s *Service, url string) proto.SocketID {
	t.Helper()
	got, err := call(t, s, "ws/open", proto.WsOpenParams{URL: url, Protocols: []string{"chat"}})
	if err != nil {
		t.Fatalf("ws/open %s: %v", url, err)
	}
	return got.(proto.SocketRef).Socket
}

// TestWebSocketEcho: text and binary messages both ways, then a close the
// server starts, reported with its code and reason.
func TestWebSocketEcho(t *testing.T) {
	srv := httptest.NewTLSServer(echoHandler(t))
	defer srv.Close()
	peer := newPeer()
	c := accountConfig(srv)
	c.Peer = peer
	s := newService(t, c)
	id := openSocket(t, s, wsURL(srv)+"/echo")
	steps := []struct {
		send proto.WsSendParams
		want note
	}{
		{proto.WsSendParams{Socket: id, Data: "hello"}, note{"ws/message", proto.WsMessageParams{Socket: id, Data: "hello"}}},
		{proto.WsSendParams{Socket: id, Data: base64.StdEncoding.EncodeToString([]byte{0, 1, 2}), Binary: true},
			note{"ws/message", proto.WsMessageParams{Socket: id, Data: "AAEC", Binary: true}}},
		{proto.WsSendParams{Socket: id, Data: "close"}, note{"ws/closed", proto.WsClosedParams{Socket: id, Code: 4000, Reason: "asked to"}}},
	}
	for _, step := range steps {
		if _, err := call(t, s, "ws/send", step.send); err != nil {
			t.Fatalf("ws/send: %v", err)
		}
		if diff := cmp.Diff(step.want, peer.next(t)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	}
	_, err := call(t, s, "ws/send", proto.WsSendParams{Socket: id, Data: "again"})
	if diff := cmp.Diff(refusal{-32602, fmt.Sprintf("params.socket %d is no open socket", id)}, refusalOf(err)); diff != "" {
		t.Errorf("send on a closed socket (-want +got):\n%s", diff)
	}
}

// TestWebSocketClose: ws/close closes with the plugin's code.
func TestWebSocketClose(t *testing.T) {
	srv := httptest.NewTLSServer(echoHandler(t))
	defer srv.Close()
	peer := newPeer()
	c := accountConfig(srv)
	c.Peer = peer
	s := newService(t, c)
	id := openSocket(t, s, wsURL(srv)+"/echo")
	if _, err := call(t, s, "ws/close", proto.WsCloseParams{Socket: id, Code: 4001, Reason: "bye"}); err != nil {
		t.Fatal(err)
	}
	want := note{"ws/closed", proto.WsClosedParams{Socket: id, Code: 4001, Reason: "bye"}}
	if diff := cmp.Diff(want, peer.next(t)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, code := range []int64{1005, 1006, 1015, 2000} {
		_, err := call(t, s, "ws/close", proto.WsCloseParams{Socket: id, Code: code})
		want := refusal{-32602, fmt.Sprintf("params.code %d is not a code a close frame may carry (1000-1003, 1007-1014, 3000-4999)", code)}
		if diff := cmp.Diff(want, refusalOf(err)); diff != "" {
			t.Errorf("code %d (-want +got):\n%s", code, diff)
		}
	}
}

// TestWebSocketMessageLimits: 1 MiB each way.
func TestWebSocketMessageLimits(t *testing.T) {
	srv := httptest.NewTLSServer(echoHandler(t))
	defer srv.Close()
	peer := newPeer()
	c := accountConfig(srv)
	c.Peer = peer
	s := newService(t, c)
	id := openSocket(t, s, wsURL(srv)+"/echo")
	_, err := call(t, s, "ws/send", proto.WsSendParams{Socket: id, Data: strings.Repeat("a", MaxMessageBytes+1)})
	want := refusal{-32004, fmt.Sprintf("%s/echo: a message of 1048577 bytes, over the limit of 1048576", wsURL(srv))}
	if diff := cmp.Diff(want, refusalOf(err)); diff != "" {
		t.Errorf("send (-want +got):\n%s", diff)
	}
	if _, err := call(t, s, "ws/send", proto.WsSendParams{Socket: id, Data: "big"}); err != nil {
		t.Fatal(err)
	}
	wantNote := note{"ws/closed", proto.WsClosedParams{Socket: id, Code: 1009, Reason: "a message over the limit of 1048576 bytes"}}
	if diff := cmp.Diff(wantNote, peer.next(t)); diff != "" {
		t.Errorf("receive (-want +got):\n%s", diff)
	}
}

// TestWebSocketRules: wss only but for the app's hosts, the host rules
// of net/fetch, and 16 sockets at most.
func TestWebSocketRules(t *testing.T) {
	plain := httptest.NewServer(echoHandler(t))
	defer plain.Close()
	peer := newPeer()
	s := newService(t, Config{Peer: peer,
		Granted:     manifest.Permissions{Network: []string{"slack.com", netguard.LocalSharedEntry}},
		LocalShared: []string{plain.Listener.Addr().String()}})
	refusals := []struct{ url, reason string }{
		{"ws://slack.com/", "ws://slack.com/: only wss is allowed"},
		{"https://slack.com/", "https://slack.com/: only wss is allowed"},
		{"wss://example.org/", "example.org is not in permissions.network of dev.escouade.slack"},
	}
	for _, r := range refusals {
		_, err := call(t, s, "ws/open", proto.WsOpenParams{URL: r.url})
		if diff := cmp.Diff(refusal{-32003, r.reason}, refusalOf(err)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", r.url, diff)
		}
	}
	for range MaxSockets {
		openSocket(t, s, wsURL(plain)+"/echo")
	}
	_, err := call(t, s, "ws/open", proto.WsOpenParams{URL: wsURL(plain) + "/echo"})
	if diff := cmp.Diff(refusal{-32003, "16 sockets are open, the most a plugin may hold"}, refusalOf(err)); diff != "" {
		t.Errorf("17th socket (-want +got):\n%s", diff)
	}
	s.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.sockets) != 0 {
		t.Errorf("%d sockets left after Close", len(s.sockets))
	}
}

// TestWebSocketHandshakeRefused: an answer that is no websocket fails.
func TestWebSocketHandshakeRefused(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/elsewhere", http.StatusFound)
	}))
	defer srv.Close()
	s := newService(t, accountConfig(srv))
	_, err := call(t, s, "ws/open", proto.WsOpenParams{URL: wsURL(srv) + "/x"})
	want := refusal{-32004, wsURL(srv) + "/x: the server answered 302, not a websocket"}
	if diff := cmp.Diff(want, refusalOf(err)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
