package web

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// requestTo is a request with Host header host, accepted on local.
func requestTo(local *net.TCPAddr, host string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Host = host
	return r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, net.Addr(local)))
}

var (
	v4 = &net.TCPAddr{IP: net.ParseIP("127.0.0.1"), Port: 7777}
	v6 = &net.TCPAddr{IP: net.ParseIP("::1"), Port: 7777}
)

// The Host header is one of the spellings the docs name for the address
// listened on; other spellings of the same address are refused.
func TestHostSpellings(t *testing.T) {
	tests := []struct {
		local *net.TCPAddr
		host  string
		want  bool
	}{
		{v4, "127.0.0.1:7777", true},
		{v4, "localhost:7777", true},
		{v6, "[::1]:7777", true},
		{v6, "localhost:7777", true},
		{v4, "[::ffff:127.0.0.1]:7777", false}, // IPv4-mapped IPv6
		{v4, "[::ffff:7f00:1]:7777", false},
		{v4, "[127.0.0.1]:7777", false},
		{v4, "127.0.0.1.:7777", false}, // trailing dot
		{v4, "localhost.:7777", false},
		{v4, "LOCALHOST:7777", false}, // upper case
		{v4, "LocalHost:7777", false},
		{v4, "127.000.000.001:7777", false}, // zero-padded
		{v4, "0177.0.0.1:7777", false},      // octal
		{v4, "0x7f.0.0.1:7777", false},      // hex
		{v4, "2130706433:7777", false},      // decimal integer
		{v4, "127.1:7777", false},           // short form
		{v4, "127.0.0.2:7777", false},       // another loopback than the one listened on
		{v4, "127.0.0.1:07777", false},      // zero-padded port
		{v4, "127.0.0.1:7778", false},
		{v4, "127.0.0.1", false}, // no port, and it is not 80
		{v4, "127.0.0.1:", false},
		{v4, "", false},
		{v4, "evil.example:7777", false},
		{v4, "127.0.0.1:7777 ", false},
		{v6, "[0:0:0:0:0:0:0:1]:7777", false}, // not the canonical form
		{v6, "[::1%lo]:7777", false},          // a zone
		{v6, "[::0001]:7777", false},
		{v6, "127.0.0.1:7777", false},
		{&net.TCPAddr{IP: net.ParseIP("127.0.0.1"), Port: 80}, "127.0.0.1", true},
		{&net.TCPAddr{IP: net.ParseIP("127.0.0.1"), Port: 80}, "localhost", true},
		{&net.TCPAddr{IP: net.ParseIP("::1"), Port: 80}, "[::1]", true},
		{&net.TCPAddr{IP: net.ParseIP("10.0.0.1"), Port: 7777}, "10.0.0.1:7777", false}, // not loopback
	}
	for _, tt := range tests {
		if got := hostAllowed(requestTo(tt.local, tt.host)); got != tt.want {
			t.Errorf("Host %q on %s: allowed = %v, want %v", tt.host, tt.local, got, tt.want)
		}
	}
}

// Whatever the Host header, one that is allowed is byte for byte the
// canonical address listened on or localhost, with the port.
func FuzzHostAllowed(f *testing.F) {
	for _, s := range []string{"127.0.0.1:7777", "localhost:7777", "[::1]:7777", "[::ffff:127.0.0.1]:7777", "LOCALHOST:7777", "2130706433:7777", "127.0.0.1.:7777"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, host string, six bool) {
		local := v4
		if six {
			local = v6
		}
		if !hostAllowed(requestTo(local, host)) {
			return
		}
		h, port, err := net.SplitHostPort(host)
		if err != nil || port != "7777" {
			t.Fatalf("allowed %q: port %q, %v", host, port, err)
		}
		if h == "localhost" {
			return
		}
		if h != local.IP.String() || (strings.Contains(host, "[") != six) {
			t.Fatalf("allowed %q on %s", host, local)
		}
	})
}
