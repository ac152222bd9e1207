package netguard

import (
	"context"
	"net/netip"
	"slices"
	"strings"
	"testing"
)

// FuzzURLPolicy: whatever the URL, a target the policy lets through is a
// listed host (or the app's), with no userinfo, a plain scheme only for
// the app's hosts, never a forbidden literal, and judging it again gives
// the same target.
func FuzzURLPolicy(f *testing.F) {
	for _, seed := range []string{
		"https://slack.com/", "https://api.slack.com:8443/x?y#z", "http://api.slack.com/x",
		"https://slack.com@127.0.0.1/", "https://127.1/", "https://[::ffff:127.0.0.1]/",
		"https://ｓｌａｃｋ.com/", "https://slack.com./", "https://evilslack.com/",
		"http://127.0.0.1:7777/", "https://[fe80::1%25eth0]/", "https://0x7f000001/",
		"wss://slack.com/", "https://xn--bcher-kva.example/", "https://10.1.2.3/",
		"https://slack.com../", "https://.slack.com/", "https://a..slack.com/", "https://slack.com.。/",
	} {
		f.Add(seed, false)
	}
	p := testPolicy()
	f.Fuzz(func(t *testing.T, raw string, ws bool) {
		kind := HTTP
		if ws {
			kind = WebSocket
		}
		target, refusal := p.CheckURL(raw, kind)
		if refusal != nil {
			if refusal.Reason == "" || strings.ContainsAny(refusal.Reason, "\n\r") {
				t.Fatalf("CheckURL(%q): refusal %q is not one journal line", raw, refusal.Reason)
			}
			return
		}
		checkTarget(t, p, raw, kind, target)
	})
}

func checkTarget(t *testing.T, p *Policy, raw string, kind Kind, target Target) {
	t.Helper()
	u := target.URL
	secure, _ := kind.schemes()
	switch {
	case u.User != nil:
		t.Fatalf("CheckURL(%q) let userinfo through: %v", raw, u)
	case u.Scheme != secure && !target.Local:
		t.Fatalf("CheckURL(%q) let %s through for a host that is not the app's", raw, u.Scheme)
	case u.Hostname() != target.Host:
		t.Fatalf("CheckURL(%q): the URL names %q, the judged host is %q", raw, u.Hostname(), target.Host)
	}
	if addr, err := netip.ParseAddr(target.Host); err == nil {
		if !target.Local && Forbidden(addr) {
			t.Fatalf("CheckURL(%q) let the forbidden address %s through", raw, addr)
		}
	} else if !target.Local && !p.coversName(target.Host) {
		t.Fatalf("CheckURL(%q) let %q through, which no entry covers", raw, target.Host)
	} else if slices.Contains(strings.Split(target.Host, "."), "") {
		t.Fatalf("CheckURL(%q) let %q through, a name with an empty label", raw, target.Host)
	}
	again, refusal := p.CheckURL(u.String(), kind)
	if refusal != nil || again.URL.String() != u.String() || again.Local != target.Local {
		t.Fatalf("CheckURL(%q) gave %v; judging it again gave %v, %v", raw, u, again.URL, refusal)
	}
}

// FuzzAddress: the judgement of an address does not depend on how it is
// written: an IPv4-mapped form is judged as its IPv4 address, a zone is
// always forbidden, and the dial-time hook agrees with Forbidden.
func FuzzAddress(f *testing.F) {
	for _, seed := range [][]byte{
		{127, 0, 0, 1}, {10, 0, 0, 1}, {8, 8, 8, 8}, {100, 64, 0, 0}, {255, 255, 255, 255},
		netip.MustParseAddr("::1").AsSlice(), netip.MustParseAddr("2606:4700::1111").AsSlice(),
		netip.MustParseAddr("64:ff9b::7f00:1").AsSlice(), netip.MustParseAddr("2002:7f00:1::").AsSlice(),
	} {
		f.Add(seed, "")
	}
	f.Fuzz(func(t *testing.T, raw []byte, zone string) {
		addr, ok := netip.AddrFromSlice(raw)
		if !ok {
			return
		}
		forbidden := Forbidden(addr)
		if addr.Is4() && Forbidden(netip.AddrFrom16(addr.As16())) != forbidden {
			t.Fatalf("%s and its IPv4-mapped form are judged apart", addr)
		}
		if addr.Is6() && zone != "" && !Forbidden(addr.WithZone(zone)) {
			t.Fatalf("zoned %s%%%s is not forbidden", addr, zone)
		}
		if addr.Is6() && !addr.Is4In6() && !forbidden && !ranges6Global(addr) {
			t.Fatalf("%s outside 2000::/3 is not forbidden", addr)
		}
		hook := guardControl("h")(context.Background(), network(addr), netip.AddrPortFrom(addr.Unmap(), 443).String(), nil)
		if (hook != nil) != forbidden {
			t.Fatalf("Forbidden(%s) = %v but the control hook said %v", addr, forbidden, hook)
		}
	})
}

func ranges6Global(addr netip.Addr) bool {
	return netip.MustParsePrefix("2000::/3").Contains(addr)
}

func network(addr netip.Addr) string {
	if addr.Unmap().Is4() {
		return "tcp4"
	}
	return "tcp6"
}
