package netguard

import (
	"net/netip"
	"testing"

	"code.dny.dev/ssrf"
)

// TestForbidden holds every address class of docs/protocol.md#netfetch with the boundaries of
// each range: the first and last address inside, and the neighbours just
// outside that are public.
func TestForbidden(t *testing.T) {
	for _, tt := range addressClasses {
		addr := netip.MustParseAddr(tt.addr)
		if got := Forbidden(addr); got != tt.forbidden {
			t.Errorf("Forbidden(%s) = %v, want %v", tt.addr, got, tt.forbidden)
		}
	}
	if !Forbidden(netip.Addr{}) {
		t.Error("Forbidden(the zero Addr) = false, want true")
	}
}

// addressClasses is every address class of docs/protocol.md#netfetch with the boundaries of
// each range.
var addressClasses = []struct {
	addr      string
	forbidden bool
}{
	// This network, unspecified.
	{"0.0.0.0", true}, {"0.255.255.255", true}, {"1.0.0.0", false},
	// Private 10/8.
	{"9.255.255.255", false}, {"10.0.0.0", true}, {"10.255.255.255", true}, {"11.0.0.0", false},
	// CGNAT 100.64/10.
	{"100.63.255.255", false}, {"100.64.0.0", true}, {"100.127.255.255", true}, {"100.128.0.0", false},
	// Loopback 127/8.
	{"126.255.255.255", false}, {"127.0.0.0", true}, {"127.0.0.1", true}, {"127.255.255.255", true}, {"128.0.0.0", false},
	// Link-local 169.254/16.
	{"169.253.255.255", false}, {"169.254.0.0", true}, {"169.254.169.254", true}, {"169.254.255.255", true}, {"169.255.0.0", false},
	// Private 172.16/12.
	{"172.15.255.255", false}, {"172.16.0.0", true}, {"172.31.255.255", true}, {"172.32.0.0", false},
	// IETF protocol assignments and documentation TEST-NET-1.
	{"191.255.255.255", false}, {"192.0.0.0", true}, {"192.0.0.255", true}, {"192.0.1.0", false},
	{"192.0.2.0", true}, {"192.0.2.255", true}, {"192.0.3.0", false},
	// 6to4 relay anycast.
	{"192.88.98.255", false}, {"192.88.99.0", true}, {"192.88.99.255", true}, {"192.88.100.0", false},
	// Private 192.168/16.
	{"192.167.255.255", false}, {"192.168.0.0", true}, {"192.168.255.255", true}, {"192.169.0.0", false},
	// Benchmarking 198.18/15.
	{"198.17.255.255", false}, {"198.18.0.0", true}, {"198.19.255.255", true}, {"198.20.0.0", false},
	// Documentation TEST-NET-2 and -3.
	{"198.51.99.255", false}, {"198.51.100.0", true}, {"198.51.100.255", true}, {"198.51.101.0", false},
	{"203.0.112.255", false}, {"203.0.113.0", true}, {"203.0.113.255", true}, {"203.0.114.0", false},
	// Multicast 224/4, reserved 240/4, broadcast.
	{"223.255.255.255", false}, {"224.0.0.0", true}, {"239.255.255.255", true},
	{"240.0.0.0", true}, {"255.255.255.254", true}, {"255.255.255.255", true},
	// Public.
	{"8.8.8.8", false}, {"1.1.1.1", false}, {"93.184.215.14", false},

	// IPv6 outside 2000::/3: unspecified, loopback, IPv4-mapped and
	// -compatible, NAT64 (well-known and local-use), discard, ULA,
	// link-local, site-local, multicast.
	{"::", true}, {"::1", true}, {"::2", true},
	{"::ffff:127.0.0.1", true}, {"::ffff:10.0.0.1", true}, {"::ffff:169.254.169.254", true},
	{"::127.0.0.1", true}, {"::ffff:0:127.0.0.1", true},
	{"64:ff9b::7f00:1", true}, {"64:ff9b::a00:1", true}, {"64:ff9b::808:808", true}, {"64:ff9b:1::1", true},
	{"100::", true}, {"100::ffff:ffff:ffff:ffff", true},
	{"fc00::", true}, {"fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true},
	{"fe80::", true}, {"febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true}, {"fec0::1", true},
	{"ff00::", true}, {"ff02::1", true}, {"ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true},
	{"1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true}, {"4000::", true},
	// Inside 2000::/3: Teredo and the IETF block, documentation, 6to4
	// (which embeds any IPv4 address, 127.0.0.1 included), AS112, the
	// new documentation block.
	{"2000::", false},
	{"2001::", true}, {"2001:0:4136:e378:8000:63bf:3fff:fdd2", true}, {"2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff", true}, {"2001:200::", false},
	{"2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", false}, {"2001:db8::", true}, {"2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", true}, {"2001:db9::", false},
	{"2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false},
	{"2002::", true}, {"2002:7f00:1::", true}, {"2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true}, {"2003::", false},
	{"2620:4f:8000::", true}, {"2620:4f:8000:ffff:ffff:ffff:ffff:ffff", true}, {"2620:4f:8001::", false},
	{"3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false}, {"3fff::", true}, {"3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff", true}, {"3fff:1000::", false},
	{"3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", false},
	{"2606:4700:4700::1111", false}, {"2a00:1450:4007:80f::200e", false},
	// IPv4-mapped public addresses reach the public address.
	{"::ffff:8.8.8.8", false},
	// Zoned addresses name an interface of this machine, even global ones.
	{"fe80::1%eth0", true}, {"2606:4700:4700::1111%eth0", true}, {"::1%lo", true},
}

// TestForbiddenAgreesWithGuardian: reading the lists directly judges as
// the library's own Guardian does, on the boundaries of every range.
func TestForbiddenAgreesWithGuardian(t *testing.T) {
	g := ssrf.New(ssrf.WithAnyPort(), ssrf.WithAnyNetwork())
	var addrs []netip.Addr
	for _, p := range append(append([]netip.Prefix{ssrf.IPv6GlobalUnicast, ssrf.IPv6NAT64Prefix}, ssrf.IPv4DeniedPrefixes...), ssrf.IPv6DeniedPrefixes...) {
		first := p.Masked().Addr()
		addrs = append(addrs, first, first.Prev(), lastOf(p), lastOf(p).Next())
	}
	for _, a := range addrs {
		if !a.IsValid() || a.Is4In6() {
			continue
		}
		if want := g.SafeAddr(a) != nil; Forbidden(a) != want {
			t.Errorf("Forbidden(%s) = %v, the Guardian says %v", a, !want, want)
		}
	}
}

func lastOf(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 1 << (7 - i%8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}
