package net

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/escouade-dev/escouade-plugin/manifest"
	"github.com/escouade-dev/escouade-plugin/netguard"
	"github.com/escouade-dev/escouade-plugin/services"
)

const pluginID = "dev.escouade.slack"

// publicAddr stands for a public host in the tests; the counting connect
// takes it to a loopback server, so nothing leaves this machine.
const publicAddr = "93.184.215.14"

// note is one notification the plugin got.
type note struct {
	Method string
	Params any
}

// fakePeer collects notifications and lets a test wait for them.
type fakePeer struct {
	notes chan note
}

func newPeer() *fakePeer { return &fakePeer{notes: make(chan note, 1024)} }

func (p *fakePeer) Notify(method string, params any) error {
	p.notes <- note{method, params}
	return nil
}

// next waits for the next notification.
func (p *fakePeer) next(t *testing.T) note {
	t.Helper()
	select {
	case n := <-p.notes:
		return n
	case <-time.After(30 * time.Second):
		t.Fatal("no notification came")
		return note{}
	}
}

// fakeResolver answers each name with its next answer, the last one
// repeating; a name it does not know fails the test.
type fakeResolver struct {
	t       *testing.T
	mu      sync.Mutex
	answers map[string][]string
	calls   map[string]int
}

func (r *fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	list, ok := r.answers[host]
	if !ok {
		r.t.Errorf("the resolver was asked for %q", host)
		return nil, errors.New("no such host")
	}
	if r.calls == nil {
		r.calls = map[string]int{}
	}
	i := min(r.calls[host], len(list)-1)
	r.calls[host]++
	return []netip.Addr{netip.MustParseAddr(list[i])}, nil
}

// redirectConnect runs the guard's control hook on the address asked for,
// as a net.Dialer does, counts what passed, and takes publicAddr to a
// loopback server. Any other address is dialed as it is.
type redirectConnect struct {
	to     string
	passed atomic.Int32
}

func (c *redirectConnect) connect(ctx context.Context, network, address string, control netguard.ControlFunc) (net.Conn, error) {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return nil, err
	}
	sock := "tcp6"
	if ap.Addr().Is4() {
		sock = "tcp4"
	}
	if err := control(ctx, sock, address, nil); err != nil {
		return nil, &net.OpError{Op: "dial", Net: sock, Err: err}
	}
	c.passed.Add(1)
	if ap.Addr().String() == publicAddr {
		address = c.to
	}
	var d net.Dialer
	return d.DialContext(ctx, "tcp", address)
}

// trust is a TLS config that trusts srv's certificate (valid for
// example.com, 127.0.0.1 and ::1).
func trust(srv *httptest.Server) *tls.Config {
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	return &tls.Config{RootCAs: pool}
}

// journal records journal lines.
type journal struct {
	mu    sync.Mutex
	lines []string
}

func (j *journal) write(tag, text string) {
	j.mu.Lock()
	j.lines = append(j.lines, tag+" "+text)
	j.mu.Unlock()
}

func (j *journal) all() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]string(nil), j.lines...)
}

// newService makes a service for the test and closes it at its end.
func newService(t *testing.T, c Config) *Service {
	t.Helper()
	if c.PluginID == "" {
		c.PluginID = pluginID
	}
	s, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// accountConfig reaches srv as the host of an account.
func accountConfig(srv *httptest.Server, network ...string) Config {
	return Config{
		Granted:      manifest.Permissions{Network: append(network, netguard.AccountEntry)},
		AccountHosts: []string{srv.Listener.Addr().String()},
		TLS:          trust(srv),
	}
}

// call runs a handler with params given as a Go value.
func call(t *testing.T, s *Service, method string, params any) (any, error) {
	t.Helper()
	raw, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	h, ok := s.Methods()[method]
	if !ok {
		t.Fatalf("no handler for %s", method)
	}
	return services.Call(context.Background(), h, raw)
}

// refusal is the code and reason of a handler's error.
type refusal struct {
	Code   int64
	Reason string
}

func refusalOf(err error) refusal {
	var se *services.Error
	if errors.As(err, &se) {
		return refusal{se.Code, se.Reason}
	}
	if err != nil {
		return refusal{0, err.Error()}
	}
	return refusal{}
}

// fakeClock is a clock whose timers fire only when the test says.
type fakeClock struct {
	mu      sync.Mutex
	timers  []*fakeTimer
	created chan *fakeTimer
}

func newClock() *fakeClock { return &fakeClock{created: make(chan *fakeTimer, 64)} }

func (c *fakeClock) AfterFunc(d time.Duration, f func()) Timer {
	t := &fakeTimer{f: f, d: d}
	c.mu.Lock()
	c.timers = append(c.timers, t)
	c.mu.Unlock()
	c.created <- t
	return t
}

type fakeTimer struct {
	mu      sync.Mutex
	f       func()
	d       time.Duration
	stopped bool
	resets  int
}

func (t *fakeTimer) Stop() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	was := !t.stopped
	t.stopped = true
	return was
}

func (t *fakeTimer) Reset(time.Duration) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.resets++
	was := !t.stopped
	t.stopped = false
	return was
}

func (t *fakeTimer) resetCount() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.resets
}

// fire runs the timer's function as its time had come.
func (t *fakeTimer) fire() {
	t.mu.Lock()
	stopped := t.stopped
	t.stopped = true
	t.mu.Unlock()
	if !stopped {
		t.f()
	}
}

// countNew counts the connections srv accepted.
func countNew(srv *httptest.Server) *atomic.Int32 {
	var n atomic.Int32
	srv.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			n.Add(1)
		}
	}
	return &n
}
