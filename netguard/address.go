package netguard

import (
	"net/netip"

	"code.dny.dev/ssrf"
)

// Forbidden reports whether a connection to addr would reach this machine
// or the local network, or an address no public host has. The ranges are
// the IANA special-purpose registries as code.dny.dev/ssrf keeps them:
// every IPv4 range of docs/protocol.md#netfetch (loopback, private, link-local, unspecified,
// multicast, broadcast, CGNAT, benchmarking, documentation, reserved) and,
// for IPv6, everything outside 2000::/3 (loopback, unique local,
// link-local, multicast, IPv4-mapped and -compatible, NAT64) plus the
// special ranges inside it (Teredo and the IETF block, 6to4,
// documentation). The lists are read directly rather than through
// ssrf.Guardian, whose refusals format an error: this runs for every
// address of every connection.
//
// A zoned address is always forbidden: a zone names an interface of this
// machine. An IPv4-mapped address is judged as the IPv4 address it maps,
// which is what a dual-stack socket reaches.
func Forbidden(addr netip.Addr) bool {
	if !addr.IsValid() || addr.Zone() != "" {
		return true
	}
	addr = addr.Unmap()
	if addr.Is4() {
		return inAny(ssrf.IPv4DeniedPrefixes, addr)
	}
	return !ssrf.IPv6GlobalUnicast.Contains(addr) || inAny(ssrf.IPv6DeniedPrefixes, addr)
}

func inAny(prefixes []netip.Prefix, addr netip.Addr) bool {
	for _, p := range prefixes {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}
