package netguard

import (
	"net/netip"

	"code.dny.dev/ssrf"
)

// ranges judges addresses against the IANA special-purpose registries:
// every IPv4 range of §9.1 (loopback, private, link-local, unspecified,
// multicast, broadcast, CGNAT, benchmarking, documentation, reserved) and,
// for IPv6, everything outside 2000::/3 (loopback, unique local,
// link-local, multicast, IPv4-mapped and -compatible, NAT64) plus the
// special ranges inside it (Teredo and the IETF block, 6to4,
// documentation). A Guardian is immutable once made, so one serves every
// Dialer.
var ranges = ssrf.New(ssrf.WithAnyPort(), ssrf.WithAnyNetwork())

// Forbidden reports whether a connection to addr would reach this machine
// or the local network, or an address no public host has. A zoned address
// is always forbidden: a zone names an interface of this machine. An
// IPv4-mapped address is judged as the IPv4 address it maps, which is what
// a dual-stack socket reaches.
func Forbidden(addr netip.Addr) bool {
	if !addr.IsValid() || addr.Zone() != "" {
		return true
	}
	if addr.Is4In6() {
		addr = addr.Unmap()
	}
	return ranges.SafeAddr(addr) != nil
}
