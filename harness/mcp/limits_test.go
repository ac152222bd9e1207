package mcp

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

type sdkSession = sdk.ServerSession

// startWith starts a server with opts (Ask from rec), closed at the end of
// the test.
func startWith(t *testing.T, opts Options) *Server {
	t.Helper()
	if opts.Ask == nil {
		opts.Ask = (&recorder{}).ask
	}
	s, err := Start(t.Context(), opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// closedByServer waits for the server to close conn: a read that ends. The
// deadline only keeps a broken server from hanging the test.
func closedByServer(t *testing.T, conn net.Conn) {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(time.Minute))
	_, err := io.Copy(io.Discard, conn)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("the server kept the connection open")
	}
}

func dial(t *testing.T, s *Server) net.Conn {
	t.Helper()
	host := strings.TrimSuffix(strings.TrimPrefix(s.URL(), "http://"), endpointPath)
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// TestHalfOpenConnectionClosed: a connection that never finishes its
// headers was held for ever.
func TestHalfOpenConnectionClosed(t *testing.T) {
	s := startWith(t, Options{HeaderTimeout: 50 * time.Millisecond})
	conn := dial(t, s)
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n") // and nothing more
	closedByServer(t, conn)
}

// TestIdleConnectionClosed: a kept-alive connection with nothing asked was
// held for ever.
func TestIdleConnectionClosed(t *testing.T) {
	s := startWith(t, Options{IdleTimeout: 50 * time.Millisecond})
	conn := dial(t, s)
	fmt.Fprintf(conn, "GET /nothing HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("status %d, want 401", resp.StatusCode)
	}
	closedByServer(t, conn)
}

// TestHugeHeadersRefused: headers past the bound are refused, not read.
func TestHugeHeadersRefused(t *testing.T) {
	s := startWith(t, Options{})
	req, _ := http.NewRequest(http.MethodPost, s.URL(), strings.NewReader(initializeBody))
	req.Header.Set("X-Big", strings.Repeat("a", 2*maxHeaderBytes))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return // the server may cut the connection instead
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("status %d, want 431", resp.StatusCode)
	}
}

// TestSessionsPerTokenBounded: sessions of one token were never bounded;
// past MaxSessions the oldest is closed, and the newest work.
func TestSessionsPerTokenBounded(t *testing.T) {
	s := startWith(t, Options{MaxSessions: 2})
	tok := s.NewToken("a1")
	first := mustConnect(t, s.URL(), tok)
	mustConnect(t, s.URL(), tok)
	third := mustConnect(t, s.URL(), tok)
	if _, err := third.ListTools(t.Context(), nil); err != nil {
		t.Errorf("newest session: %v", err)
	}
	first.Wait() // ends once the server closed it
	if _, err := first.ListTools(t.Context(), nil); err == nil {
		t.Error("the oldest session still answers")
	}
	count := 0
	for range s.agents.byName["a1"].mcp.Sessions() {
		count++
	}
	if count > 2 {
		t.Errorf("%d live sessions, want at most 2", count)
	}
}

// TestRevokedBetweenCheckAndHandler: a token revoked after the token check
// was answered 400 by the SDK, not 401.
func TestRevokedBetweenCheckAndHandler(t *testing.T) {
	o := newOwners(DefaultMaxSessions, nil)
	h := o.guard(http.NotFoundHandler(), func(string) bool { return false })
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, endpointPath, strings.NewReader(initializeBody)))
	if rec.Code != http.StatusUnauthorized || rec.Header().Get("WWW-Authenticate") == "" {
		t.Errorf("status %d (%q), want 401 with WWW-Authenticate", rec.Code, rec.Header().Get("WWW-Authenticate"))
	}
}

// TestOwnerNeverForgottenWhileLive: the owner table forgot the oldest
// sessions past 4096, and another agent's token on one then reached the
// SDK (403), not 401.
func TestOwnerNeverForgottenWhileLive(t *testing.T) {
	o := newOwners(DefaultMaxSessions, func(string, string) *sdkSession { return nil })
	o.note("s0", "agent:a")
	for i := range 5000 {
		o.note(fmt.Sprintf("s%d-%d", i, i), fmt.Sprintf("agent:%d", i))
	}
	if o.owns("s0", "agent:b") {
		t.Error("agent b may use agent a's session")
	}
	for i := range 20 {
		o.note(fmt.Sprintf("a-%d", i), "agent:a")
	}
	if got := o.sessions("agent:a"); got != DefaultMaxSessions {
		t.Errorf("agent a has %d sessions noted, want %d", got, DefaultMaxSessions)
	}
}
