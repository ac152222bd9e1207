package netguard

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeResolver answers each name with the next of its answers, the last
// one repeating: a rebinding server answers differently each time.
type fakeResolver struct {
	mu      sync.Mutex
	answers map[string][][]string
	calls   map[string]int
}

func newResolver(answers map[string][][]string) *fakeResolver {
	return &fakeResolver{answers: answers, calls: map[string]int{}}
}

func (r *fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	list, ok := r.answers[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	i := min(r.calls[host], len(list)-1)
	r.calls[host]++
	var out []netip.Addr
	for _, a := range list[i] {
		out = append(out, netip.MustParseAddr(a))
	}
	return out, nil
}

// countingConnect runs the control hook as net.Dialer does and records
// every address that passed it; it never touches the network.
type countingConnect struct {
	mu     sync.Mutex
	dialed []string
}

func (c *countingConnect) connect(ctx context.Context, network, address string, control ControlFunc) (net.Conn, error) {
	network = socketNetwork(address)
	if err := control(ctx, network, address, nil); err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: err}
	}
	c.mu.Lock()
	c.dialed = append(c.dialed, address)
	c.mu.Unlock()
	client, server := net.Pipe()
	server.Close()
	return client, nil
}

func (c *countingConnect) addresses() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.dialed...)
}

// TestDialJudgesResolvedAddresses: a listed name that resolves to any
// forbidden class is refused with the sentence of docs/protocol.md#netfetch, and nothing is
// dialed; a public one is dialed as resolved.
func TestDialJudgesResolvedAddresses(t *testing.T) {
	tests := []struct {
		answer  []string
		refusal string
		dialed  []string
	}{
		{[]string{"93.184.215.14"}, "", []string{"93.184.215.14:443"}},
		{[]string{"2606:4700::1111"}, "", []string{"[2606:4700::1111]:443"}},
		{[]string{"::ffff:93.184.215.14"}, "", []string{"93.184.215.14:443"}},
		{[]string{"93.184.215.14", "1.1.1.1"}, "", []string{"93.184.215.14:443"}},
		{[]string{"127.0.0.1"}, "slack.com resolves to 127.0.0.1, an address of this machine or of the local network", nil},
		{[]string{"93.184.215.14", "127.0.0.1"}, "slack.com resolves to 127.0.0.1, an address of this machine or of the local network", nil},
		{[]string{"10.0.0.1"}, "slack.com resolves to 10.0.0.1, an address of this machine or of the local network", nil},
		{[]string{"172.16.0.1"}, "slack.com resolves to 172.16.0.1, an address of this machine or of the local network", nil},
		{[]string{"192.168.1.1"}, "slack.com resolves to 192.168.1.1, an address of this machine or of the local network", nil},
		{[]string{"169.254.169.254"}, "slack.com resolves to 169.254.169.254, an address of this machine or of the local network", nil},
		{[]string{"100.64.0.1"}, "slack.com resolves to 100.64.0.1, an address of this machine or of the local network", nil},
		{[]string{"0.0.0.0"}, "slack.com resolves to 0.0.0.0, an address of this machine or of the local network", nil},
		{[]string{"255.255.255.255"}, "slack.com resolves to 255.255.255.255, an address of this machine or of the local network", nil},
		{[]string{"224.0.0.1"}, "slack.com resolves to 224.0.0.1, an address of this machine or of the local network", nil},
		{[]string{"198.18.0.1"}, "slack.com resolves to 198.18.0.1, an address of this machine or of the local network", nil},
		{[]string{"192.0.2.1"}, "slack.com resolves to 192.0.2.1, an address of this machine or of the local network", nil},
		{[]string{"240.0.0.1"}, "slack.com resolves to 240.0.0.1, an address of this machine or of the local network", nil},
		{[]string{"::1"}, "slack.com resolves to ::1, an address of this machine or of the local network", nil},
		{[]string{"::ffff:127.0.0.1"}, "slack.com resolves to 127.0.0.1, an address of this machine or of the local network", nil},
		{[]string{"64:ff9b::7f00:1"}, "slack.com resolves to 64:ff9b::7f00:1, an address of this machine or of the local network", nil},
		{[]string{"2002:7f00:1::1"}, "slack.com resolves to 2002:7f00:1::1, an address of this machine or of the local network", nil},
		{[]string{"2001:0:4136:e378:8000:63bf:80ff:fffe"}, "slack.com resolves to 2001:0:4136:e378:8000:63bf:80ff:fffe, an address of this machine or of the local network", nil},
		{[]string{"fd00::1"}, "slack.com resolves to fd00::1, an address of this machine or of the local network", nil},
		{[]string{"fe80::1"}, "slack.com resolves to fe80::1, an address of this machine or of the local network", nil},
		{[]string{"fe80::1%eth0"}, "slack.com resolves to fe80::1%eth0, an address of this machine or of the local network", nil},
		{[]string{"ff02::1"}, "slack.com resolves to ff02::1, an address of this machine or of the local network", nil},
		{[]string{"2001:db8::1"}, "slack.com resolves to 2001:db8::1, an address of this machine or of the local network", nil},
	}
	for _, tt := range tests {
		t.Run(tt.answer[len(tt.answer)-1], func(t *testing.T) {
			counter := &countingConnect{}
			d := &Dialer{Policy: testPolicy(), Connect: counter.connect,
				Resolver: newResolver(map[string][][]string{"slack.com": {tt.answer}})}
			conn, err := d.DialContext(context.Background(), "tcp", "slack.com:443")
			if conn != nil {
				conn.Close()
			}
			if got := refusalOf(err); got != tt.refusal {
				t.Errorf("refusal = %q, want %q (err %v)", got, tt.refusal, err)
			}
			if diff := cmp.Diff(tt.dialed, counter.addresses()); diff != "" {
				t.Errorf("dialed (-want +got):\n%s", diff)
			}
		})
	}
}

func refusalOf(err error) string {
	var r *Refusal
	if errors.As(err, &r) {
		return r.Reason
	}
	return ""
}

// TestDialRebinding: a resolver that answers a public address first and
// 127.0.0.1 next gets the second connection refused, and the first went
// to the address it was judged on.
func TestDialRebinding(t *testing.T) {
	counter := &countingConnect{}
	d := &Dialer{Policy: testPolicy(), Connect: counter.connect,
		Resolver: newResolver(map[string][][]string{"slack.com": {{"93.184.215.14"}, {"127.0.0.1"}}})}
	conn, err := d.DialContext(context.Background(), "tcp", "slack.com:443")
	if err != nil {
		t.Fatalf("first dial: %v", err)
	}
	conn.Close()
	_, err = d.DialContext(context.Background(), "tcp", "slack.com:443")
	want := "slack.com resolves to 127.0.0.1, an address of this machine or of the local network"
	if got := refusalOf(err); got != want {
		t.Errorf("second dial refusal = %q, want %q", got, want)
	}
	if diff := cmp.Diff([]string{"93.184.215.14:443"}, counter.addresses()); diff != "" {
		t.Errorf("dialed (-want +got):\n%s", diff)
	}
}

// TestDialRepeatsTheURLJudgement: the dialer dials nothing the policy
// would refuse, whatever the transport asks.
func TestDialRepeatsTheURLJudgement(t *testing.T) {
	tests := []struct{ address, refusal string }{
		{"evil.net:443", "evil.net is not in permissions.network of dev.escouade.slack"},
		{"127.0.0.1:7779", "127.0.0.1 is not in permissions.network of dev.escouade.slack"},
		{"10.1.2.3:443", "10.1.2.3 is an address of this machine or of the local network"},
		{"127.1:443", `"127.1": a numeric host that is not a plain IPv4 address`},
	}
	for _, tt := range tests {
		counter := &countingConnect{}
		d := &Dialer{Policy: testPolicy(), Connect: counter.connect, Resolver: newResolver(nil)}
		_, err := d.DialContext(context.Background(), "tcp", tt.address)
		if got := refusalOf(err); got != tt.refusal {
			t.Errorf("DialContext(%s) refusal = %q, want %q", tt.address, got, tt.refusal)
		}
		if n := len(counter.addresses()); n != 0 {
			t.Errorf("DialContext(%s) dialed %d times", tt.address, n)
		}
	}
}

// TestDialLocalHosts: the app's hosts reach the local network, on their
// own port only.
func TestDialLocalHosts(t *testing.T) {
	counter := &countingConnect{}
	d := &Dialer{Policy: testPolicy(), Connect: counter.connect,
		Resolver: newResolver(map[string][][]string{"gitlab.corp": {{"192.168.1.10"}}, "git.lan": {{"10.0.0.2"}}})}
	for _, address := range []string{"gitlab.corp:8443", "git.lan:80", "git.lan:443", "127.0.0.1:7777", "[::1]:7778"} {
		conn, err := d.DialContext(context.Background(), "tcp", address)
		if err != nil {
			t.Errorf("DialContext(%s): %v", address, err)
			continue
		}
		conn.Close()
	}
	want := []string{"192.168.1.10:8443", "10.0.0.2:80", "10.0.0.2:443", "127.0.0.1:7777", "[::1]:7778"}
	if diff := cmp.Diff(want, counter.addresses()); diff != "" {
		t.Errorf("dialed (-want +got):\n%s", diff)
	}
	_, err := d.DialContext(context.Background(), "tcp", "gitlab.corp:22")
	if got := refusalOf(err); got != "gitlab.corp is not in permissions.network of dev.escouade.slack" {
		t.Errorf("another port of an account host: refusal %q", got)
	}
}

// TestDialProxy: the app's proxy is dialed as it is; the names behind it
// were judged by the policy.
func TestDialProxy(t *testing.T) {
	counter := &countingConnect{}
	d := &Dialer{Policy: testPolicy(), Connect: counter.connect, Proxy: "127.0.0.1:3128", Resolver: newResolver(nil)}
	conn, err := d.DialContext(context.Background(), "tcp", "127.0.0.1:3128")
	if err != nil {
		t.Fatalf("dial the proxy: %v", err)
	}
	conn.Close()
	if diff := cmp.Diff([]string{"127.0.0.1:3128"}, counter.addresses()); diff != "" {
		t.Errorf("dialed (-want +got):\n%s", diff)
	}
}

// TestControl: the hook judges the socket's own address and network.
func TestControl(t *testing.T) {
	control := guardControl("slack.com")
	tests := []struct{ network, address, refusal string }{
		{"tcp4", "93.184.215.14:443", ""},
		{"tcp6", "[2606:4700::1111]:443", ""},
		{"tcp4", "127.0.0.1:443", "slack.com resolves to 127.0.0.1, an address of this machine or of the local network"},
		{"tcp6", "[::1]:443", "slack.com resolves to ::1, an address of this machine or of the local network"},
		{"tcp6", "[fe80::1%eth0]:443", "slack.com resolves to fe80::1%eth0, an address of this machine or of the local network"},
		{"udp4", "93.184.215.14:443", "slack.com: only TCP connections are allowed, not udp4"},
		{"tcp4", "slack.com:443", `slack.com: the dialed address "slack.com:443" is not an IP address`},
	}
	for _, tt := range tests {
		got := refusalOf(control(context.Background(), tt.network, tt.address, nil))
		if got != tt.refusal {
			t.Errorf("control(%s, %s) = %q, want %q", tt.network, tt.address, got, tt.refusal)
		}
	}
}

// TestDialRealSocketNeverReachesLoopback goes through a real net.Dialer:
// a listed name resolving to the address of a loopback listener is
// refused in Control, and the listener's first accepted connection is a
// later, allowed one.
func TestDialRealSocketNeverReachesLoopback(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().(*net.TCPAddr)
	p := NewPolicy(Config{PluginID: pluginID, Network: []string{"slack.com", LocalSharedEntry},
		LocalShared: []string{ln.Addr().String()}})
	d := &Dialer{Policy: p, Resolver: newResolver(map[string][][]string{"slack.com": {{"127.0.0.1"}}})}
	_, err = d.DialContext(context.Background(), "tcp", net.JoinHostPort("slack.com", strconv.Itoa(addr.Port)))
	if got := refusalOf(err); got != "slack.com resolves to 127.0.0.1, an address of this machine or of the local network" {
		t.Fatalf("refusal = %q (err %v)", got, err)
	}
	// The control hook itself, past the resolution check: a dialer
	// without it would reach the listener here.
	nd := net.Dialer{ControlContext: guardControl("slack.com")}
	if _, err := nd.DialContext(context.Background(), "tcp", ln.Addr().String()); refusalOf(err) == "" {
		t.Fatalf("a net.Dialer with the guard's control reached %s: %v", ln.Addr(), err)
	}
	sentinel, err := d.DialContext(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatalf("dial local:shared: %v", err)
	}
	defer sentinel.Close()
	first, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	if first.RemoteAddr().String() != sentinel.LocalAddr().String() {
		t.Errorf("the listener first accepted %s, not the allowed connection %s", first.RemoteAddr(), sentinel.LocalAddr())
	}
}

// socketNetwork is the network a net.Dialer gives its control hook.
func socketNetwork(address string) string {
	if ap, err := netip.ParseAddrPort(address); err == nil && ap.Addr().Is4() {
		return "tcp4"
	}
	return "tcp6"
}

// TestPartialDeadline: addresses share the time left, none under 2 s.
func TestPartialDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	actx, acancel := partialDeadline(ctx, 4)
	defer acancel()
	d, _ := actx.Deadline()
	if share := time.Until(d); share > 15*time.Minute || share < 14*time.Minute {
		t.Errorf("one of 4 addresses gets %v of an hour", share)
	}
	short, scancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer scancel()
	if actx, _ := partialDeadline(short, 2); actx != short {
		t.Error("a share under 2 s was cut")
	}
}

// TestDialEveryClass: at dial time, a listed name resolving to each
// boundary address of every class is dialed exactly when the address is
// public, and refused with the sentence of docs/protocol.md#netfetch otherwise.
func TestDialEveryClass(t *testing.T) {
	for _, tt := range addressClasses {
		counter := &countingConnect{}
		d := &Dialer{Policy: testPolicy(), Connect: counter.connect,
			Resolver: newResolver(map[string][][]string{"slack.com": {{tt.addr}}})}
		conn, err := d.DialContext(context.Background(), "tcp", "slack.com:443")
		if conn != nil {
			conn.Close()
		}
		dialed := len(counter.addresses())
		if tt.forbidden {
			// An IPv4-mapped answer is said as the IPv4 address it maps.
			want := "slack.com resolves to " + netip.MustParseAddr(tt.addr).Unmap().String() + ", an address of this machine or of the local network"
			if got := refusalOf(err); got != want || dialed != 0 {
				t.Errorf("%s: refusal %q, %d dials; want %q and none", tt.addr, got, dialed, want)
			}
			continue
		}
		if err != nil || dialed != 1 {
			t.Errorf("%s: %v, %d dials; want one", tt.addr, err, dialed)
		}
	}
}
