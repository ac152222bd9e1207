package net

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/netguard"
	"github.com/escouade-dev/escouade-plugin/services"
	"github.com/escouade-dev/escouade-plugin/vocab/proto"
	"github.com/google/go-cmp/cmp"
)

func mustFetch(t *testing.T, s *Service, params proto.FetchParams) proto.FetchResult {
	t.Helper()
	got, err := call(t, s, "net/fetch", params)
	if err != nil {
		t.Fatalf("net/fetch: %v", err)
	}
	r, ok := got.(proto.FetchResult)
	if !ok {
		t.Fatalf("net/fetch answered %#v", got)
	}
	return r
}

// TestFetchShapes: methods, headers both ways, text and base64 bodies.
func TestFetchShapes(t *testing.T) {
	var seen http.Header
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = r.Header.Clone()
		body, _ := io.ReadAll(r.Body)
		w.Header().Add("X-Twice", "a")
		w.Header().Add("X-Twice", "b")
		if r.URL.Path == "/binary" {
			w.Write([]byte{0xff, 0x00, 0xfe})
			return
		}
		fmt.Fprintf(w, "%s %s %s", r.Method, r.Host, body)
	}))
	defer srv.Close()
	s := newService(t, accountConfig(srv))
	base := srv.URL

	r := mustFetch(t, s, proto.FetchParams{URL: base + "/x", Method: "PUT",
		Headers: proto.Headers{"X-Custom": "1", "Host": "evil.net", "Proxy-Authorization": "Basic x",
			"Connection": "upgrade", "Transfer-Encoding": "chunked", "Accept-Encoding": "br"},
		Body: "aGk=", BodyEncoding: proto.BodyEncodingBase64})
	want := proto.FetchResult{Status: 200, Body: "PUT " + srv.Listener.Addr().String() + " hi", BodyEncoding: proto.BodyEncodingUTF8}
	if diff := cmp.Diff(want, r, cmpIgnoreHeaders); diff != "" {
		t.Errorf("answer (-want +got):\n%s", diff)
	}
	if r.Headers["X-Twice"] != "a, b" {
		t.Errorf("X-Twice = %q, want the values joined with \", \"", r.Headers["X-Twice"])
	}
	if seen.Get("X-Custom") != "1" || seen.Get("Proxy-Authorization") != "" || seen.Get("Accept-Encoding") != "gzip, deflate" {
		t.Errorf("the server saw %v", seen)
	}
	r = mustFetch(t, s, proto.FetchParams{URL: base + "/binary"})
	if r.Body != "/wD+" || r.BodyEncoding != proto.BodyEncodingBase64 {
		t.Errorf("binary body = %q %s, want base64 /wD+", r.Body, r.BodyEncoding)
	}
}

var cmpIgnoreHeaders = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Headers" }, cmp.Ignore())

// TestFetchRefusals: the sentences of docs/protocol.md#netfetch, each with its code.
func TestFetchRefusals(t *testing.T) {
	s := newService(t, Config{Granted: manifest.Permissions{Network: []string{"slack.com"}}})
	tests := []struct {
		params proto.FetchParams
		want   refusal
	}{
		{proto.FetchParams{URL: "http://api.slack.com/x"}, refusal{-32003, "http://api.slack.com/x: only https is allowed"}},
		{proto.FetchParams{URL: "https://example.org/"}, refusal{-32003, "example.org is not in permissions.network of dev.escouade.slack"}},
		{proto.FetchParams{URL: "https://slack.com@127.0.0.1/"}, refusal{-32003, "https://slack.com@127.0.0.1/: a URL with userinfo is not allowed"}},
		// A malformed name is refused as a name not listed, before any lookup.
		{proto.FetchParams{URL: "https://slack.com../"}, refusal{-32003, `"slack.com..": not a valid host name, so it is not in permissions.network of dev.escouade.slack`}},
		{proto.FetchParams{URL: "https://.slack.com/"}, refusal{-32003, `".slack.com": not a valid host name, so it is not in permissions.network of dev.escouade.slack`}},
		{proto.FetchParams{URL: "https://slack.com/", Method: "CONNECT"}, refusal{-32003, "the method CONNECT is not allowed"}},
		{proto.FetchParams{URL: "https://slack.com/", Method: "trace"}, refusal{-32003, "the method TRACE is not allowed"}},
		{proto.FetchParams{URL: "https://slack.com/", Method: "GET X"}, refusal{-32602, `params.method "GET X" is not an HTTP method`}},
		{proto.FetchParams{URL: "https://slack.com/", Body: "!", BodyEncoding: proto.BodyEncodingBase64}, refusal{-32602, "params.body is not valid base64"}},
		{proto.FetchParams{URL: "https://slack.com/", Headers: proto.Headers{"X": "a\r\nB: c"}}, refusal{-32602, "params.headers.X holds a character a header cannot carry"}},
	}
	for _, tt := range tests {
		_, err := call(t, s, "net/fetch", tt.params)
		if diff := cmp.Diff(tt.want, refusalOf(err)); diff != "" {
			t.Errorf("%+v (-want +got):\n%s", tt.params, diff)
		}
	}
}

// TestFetchRedirectNotFollowed: the plugin gets the 3xx itself.
func TestFetchRedirectNotFollowed(t *testing.T) {
	var reached atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/target" {
			reached.Add(1)
		}
		http.Redirect(w, r, "/target", http.StatusFound)
	}))
	defer srv.Close()
	s := newService(t, accountConfig(srv))
	r := mustFetch(t, s, proto.FetchParams{URL: srv.URL + "/start"})
	if r.Status != http.StatusFound || r.Headers["Location"] != "/target" || reached.Load() != 0 {
		t.Errorf("status %d, Location %q, target reached %d times; want 302, /target, 0", r.Status, r.Headers["Location"], reached.Load())
	}
}

func gzipped(data []byte) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(data)
	zw.Close()
	return b.Bytes()
}

// TestFetchSizeCap: the decoded body counts, the limit is exact, and a
// gzip bomb fails rather than being cut.
func TestFetchSizeCap(t *testing.T) {
	const limit = 1000
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscanf(r.URL.Query().Get("n"), "%d", &n)
		if r.URL.Path == "/plain" {
			w.Write(bytes.Repeat([]byte("a"), n))
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(gzipped(bytes.Repeat([]byte("a"), n)))
	}))
	defer srv.Close()
	c := accountConfig(srv)
	c.Limits = manifest.Limits{NetMaxBytes: limit}
	s := newService(t, c)
	for _, path := range []string{"/plain", "/gzip"} {
		r := mustFetch(t, s, proto.FetchParams{URL: srv.URL + path + "?n=1000"})
		if len(r.Body) != limit || r.Headers["Content-Encoding"] != "" {
			t.Errorf("%s at the limit: %d bytes, Content-Encoding %q", path, len(r.Body), r.Headers["Content-Encoding"])
		}
		_, err := call(t, s, "net/fetch", proto.FetchParams{URL: srv.URL + path + "?n=1001"})
		want := refusal{-32004, srv.URL + path + "?n=1001: the body is over the limit of 1000 bytes"}
		if diff := cmp.Diff(want, refusalOf(err)); diff != "" {
			t.Errorf("%s one byte over (-want +got):\n%s", path, diff)
		}
	}
	// A bomb: 4 MiB of zeros in about 4 KiB, against the default limit.
	bomb := gzipped(make([]byte, 4<<20))
	bombSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(bomb)
	}))
	defer bombSrv.Close()
	s = newService(t, accountConfig(bombSrv))
	_, err := call(t, s, "net/fetch", proto.FetchParams{URL: bombSrv.URL + "/bomb"})
	want := refusal{-32004, bombSrv.URL + "/bomb: the body is over the limit of 1048576 bytes"}
	if diff := cmp.Diff(want, refusalOf(err)); diff != "" {
		t.Errorf("gzip bomb (-want +got):\n%s", diff)
	}
}

// TestFetchSlowTrickle: a server that sends a byte and then nothing ends
// at the time limit, on the service's clock.
func TestFetchSlowTrickle(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("a"))
		w.(http.Flusher).Flush()
		close(started)
		<-release
	}))
	defer srv.Close()
	defer close(release)
	clock := newClock()
	c := accountConfig(srv)
	c.AfterFunc = clock.AfterFunc
	s := newService(t, c)
	done := make(chan error, 1)
	go func() {
		_, err := call(t, s, "net/fetch", proto.FetchParams{URL: srv.URL + "/slow"})
		done <- err
	}()
	timer := <-clock.created
	<-started
	if timer.d != DefaultTimeout {
		t.Errorf("the time limit is %v, want %v", timer.d, DefaultTimeout)
	}
	timer.fire()
	want := refusal{-32004, srv.URL + "/slow: no complete answer within 10000 ms"}
	if diff := cmp.Diff(want, refusalOf(<-done)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestFetchLimitsFromManifest: limits replace the defaults within their
// ceilings.
func TestFetchLimitsFromManifest(t *testing.T) {
	tests := []struct {
		limits   manifest.Limits
		timeout  int64
		maxBytes int64
	}{
		{manifest.Limits{}, 10000, 1 << 20},
		{manifest.Limits{NetTimeoutMs: 120000, NetMaxBytes: 64 << 20}, 120000, 64 << 20},
		{manifest.Limits{NetTimeoutMs: 999999, NetMaxBytes: 1 << 40}, 120000, 64 << 20},
		{manifest.Limits{NetTimeoutMs: 50, NetMaxBytes: 10}, 50, 10},
	}
	for _, tt := range tests {
		timeout, maxBytes := limits(tt.limits)
		if timeout.Milliseconds() != tt.timeout || maxBytes != tt.maxBytes {
			t.Errorf("limits(%+v) = %v, %d; want %d ms, %d", tt.limits, timeout, maxBytes, tt.timeout, tt.maxBytes)
		}
	}
}

// TestFetchListedNameOnLoopback: a listed name that resolves to 127.0.0.1
// is refused with the sentence of docs/protocol.md#netfetch, through the real dialer, and the
// loopback server it names never accepts that connection.
func TestFetchListedNameOnLoopback(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	accepted := countNew(srv)
	srv.Start()
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	s := newService(t, Config{
		Granted:     manifest.Permissions{Network: []string{"slack.com", netguard.LocalSharedEntry}},
		LocalShared: []string{srv.Listener.Addr().String()},
		Resolver:    &fakeResolver{t: t, answers: map[string][]string{"slack.com": {"127.0.0.1"}}},
	})
	_, err := call(t, s, "net/fetch", proto.FetchParams{URL: fmt.Sprintf("https://slack.com:%d/", port)})
	want := refusal{-32003, "slack.com resolves to 127.0.0.1, an address of this machine or of the local network"}
	if diff := cmp.Diff(want, refusalOf(err)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// The allowed request the server serves is its first connection.
	mustFetch(t, s, proto.FetchParams{URL: srv.URL + "/"})
	if n := accepted.Load(); n != 1 {
		t.Errorf("the loopback server accepted %d connections, want 1 (the local:shared one)", n)
	}
}

// TestFetchRebinding: a name answered with a public address, then with
// 127.0.0.1, gets its second connection refused before it is dialed.
func TestFetchRebinding(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close") // each fetch dials anew
		fmt.Fprint(w, "public")
	}))
	defer srv.Close()
	connect := &redirectConnect{to: srv.Listener.Addr().String()}
	s := newService(t, Config{
		Granted:  manifest.Permissions{Network: []string{"example.com"}},
		Resolver: &fakeResolver{t: t, answers: map[string][]string{"example.com": {publicAddr, "127.0.0.1"}}},
		Connect:  connect.connect, TLS: trust(srv),
	})
	r := mustFetch(t, s, proto.FetchParams{URL: "https://example.com/"})
	if r.Body != "public" {
		t.Fatalf("first fetch: %q", r.Body)
	}
	_, err := call(t, s, "net/fetch", proto.FetchParams{URL: "https://example.com/"})
	want := refusal{-32003, "example.com resolves to 127.0.0.1, an address of this machine or of the local network"}
	if diff := cmp.Diff(want, refusalOf(err)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if n := connect.passed.Load(); n != 1 {
		t.Errorf("%d connections were dialed, want 1", n)
	}
}

// TestFetchProxy: through the app's proxy only the name is judged (the
// resolver is never asked), the journal says so once, and a name not
// listed never reaches the proxy.
func TestFetchProxy(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "via proxy")
	}))
	defer srv.Close()
	proxy, connects := connectProxy(t, srv.Listener.Addr().String())
	j := &journal{}
	s := newService(t, Config{
		Granted:  manifest.Permissions{Network: []string{"example.com", "127.0.0.1"}},
		Resolver: &fakeResolver{t: t}, Proxy: "http://" + proxy, TLS: trust(srv), Journal: j.write,
	})
	for range 2 {
		r := mustFetch(t, s, proto.FetchParams{URL: "https://example.com/"})
		if r.Body != "via proxy" {
			t.Fatalf("body %q", r.Body)
		}
	}
	_, err := call(t, s, "net/fetch", proto.FetchParams{URL: "https://example.org/"})
	if got := refusalOf(err).Reason; got != "example.org is not in permissions.network of dev.escouade.slack" {
		t.Errorf("refusal %q", got)
	}
	// A listed literal of this machine is refused even though the proxy
	// would dial it.
	_, err = call(t, s, "net/fetch", proto.FetchParams{URL: "https://127.0.0.1/"})
	if got := refusalOf(err).Reason; got != "127.0.0.1 is an address of this machine or of the local network" {
		t.Errorf("refusal %q", got)
	}
	want := []string{"net requests go through the proxy http://" + proxy + " of the network settings: only host names are judged"}
	if diff := cmp.Diff(want, j.all()); diff != "" {
		t.Errorf("journal (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"example.com:443"}, connects()); diff != "" {
		t.Errorf("CONNECTs (-want +got):\n%s", diff)
	}
}

// connectProxy is an HTTP proxy on loopback that takes every CONNECT to
// to and records the host:port asked for.
func connectProxy(t *testing.T, to string) (string, func() []string) {
	var mu = make(chan struct{}, 1)
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect {
			http.Error(w, "CONNECT only", http.StatusMethodNotAllowed)
			return
		}
		mu <- struct{}{}
		asked = append(asked, r.Host)
		<-mu
		upstream, err := net.Dial("tcp", to)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		w.WriteHeader(http.StatusOK)
		conn, rw, _ := w.(http.Hijacker).Hijack()
		go func() { io.Copy(upstream, rw); upstream.Close() }()
		io.Copy(conn, upstream)
		conn.Close()
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String(), func() []string {
		mu <- struct{}{}
		defer func() { <-mu }()
		return append([]string(nil), asked...)
	}
}

// TestFetchIgnoresEnvironmentProxy: HTTPS_PROXY and its kin are never
// used; the listener they name accepts nothing but the test's own
// connection.
func TestFetchIgnoresEnvironmentProxy(t *testing.T) {
	trap, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer trap.Close()
	for _, name := range []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"} {
		t.Setenv(name, "http://"+trap.Addr().String())
	}
	t.Setenv("NO_PROXY", "")
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "direct") }))
	defer srv.Close()
	s := newService(t, accountConfig(srv))
	if r := mustFetch(t, s, proto.FetchParams{URL: srv.URL + "/"}); r.Body != "direct" {
		t.Errorf("body %q", r.Body)
	}
	mine, err := net.Dial("tcp", trap.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer mine.Close()
	first, err := trap.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	if first.RemoteAddr().String() != mine.LocalAddr().String() {
		t.Errorf("the environment's proxy was dialed (first connection from %s)", first.RemoteAddr())
	}
}

// TestCloseEndsFetches: Close ends a fetch under way.
func TestCloseEndsFetches(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-release
	}))
	defer srv.Close()
	defer close(release)
	s, err := New(accountConfig(srv))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := call(t, s, "net/fetch", proto.FetchParams{URL: srv.URL + "/hang"})
		done <- err
	}()
	<-started
	s.Close()
	want := refusal{-32004, srv.URL + "/hang: the instance ended"}
	if diff := cmp.Diff(want, refusalOf(<-done)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestFetchUnreachable: a failure on the way is -32004.
func TestFetchUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	s := newService(t, Config{Granted: manifest.Permissions{Network: []string{netguard.LocalSharedEntry}}, LocalShared: []string{addr}})
	_, err = call(t, s, "net/fetch", proto.FetchParams{URL: "http://" + addr + "/"})
	got := refusalOf(err)
	if got.Code != services.CodeFailed || !strings.HasPrefix(got.Reason, "http://"+addr+"/: unreachable: ") {
		t.Errorf("got %+v, want -32004 unreachable", got)
	}
}

// TestFetchTimeoutRealClock: on the real clock the limit is a deadline
// too (here the manifest's 200 ms against a server that never answers).
func TestFetchTimeoutRealClock(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	defer srv.Close()
	defer close(release)
	c := accountConfig(srv)
	c.Limits = manifest.Limits{NetTimeoutMs: 200}
	s := newService(t, c)
	_, err := call(t, s, "net/fetch", proto.FetchParams{URL: srv.URL + "/never"})
	want := refusal{-32004, srv.URL + "/never: no complete answer within 200 ms"}
	if diff := cmp.Diff(want, refusalOf(err)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestProxyAddress: the address the transport dials for each proxy form.
func TestProxyAddress(t *testing.T) {
	tests := map[string]string{
		"http://proxy.lan":        "proxy.lan:80",
		"https://proxy.lan":       "proxy.lan:443",
		"socks5://127.0.0.1":      "127.0.0.1:1080",
		"http://[::1]:3128":       "[::1]:3128",
		"http://u:p@proxy.lan:81": "proxy.lan:81",
	}
	for raw, want := range tests {
		u, _ := url.Parse(raw)
		if got := proxyAddress(u); got != want {
			t.Errorf("proxyAddress(%s) = %s, want %s", raw, got, want)
		}
	}
}

// TestFetchTLSFailure: a certificate the host does not trust fails on
// the way, saying TLS.
func TestFetchTLSFailure(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	defer srv.Close()
	c := accountConfig(srv)
	c.TLS = nil
	s := newService(t, c)
	_, err := call(t, s, "net/fetch", proto.FetchParams{URL: srv.URL + "/"})
	got := refusalOf(err)
	if got.Code != services.CodeFailed || !strings.HasPrefix(got.Reason, srv.URL+"/: TLS: ") {
		t.Errorf("got %+v, want -32004 TLS", got)
	}
}

// TestFetchHTTP2: the guarded transport speaks HTTP/2 where the server does.
func TestFetchHTTP2(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, r.Proto) }))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	s := newService(t, accountConfig(srv))
	if r := mustFetch(t, s, proto.FetchParams{URL: srv.URL + "/"}); r.Body != "HTTP/2.0" {
		t.Errorf("proto %q, want HTTP/2.0", r.Body)
	}
}
