package netguard

import (
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// The entries of permissions.network that stand for hosts the app
// supplies.
const (
	AccountEntry     = "{account}"
	LocalSharedEntry = "local:shared"
)

// Kind is the family of a URL: plain HTTP (net/fetch, net/stream) or a
// websocket (ws/open).
type Kind int

const (
	HTTP Kind = iota
	WebSocket
)

// schemes gives the scheme a kind always allows and the plain one only
// the app's local hosts get.
func (k Kind) schemes() (secure, plain string) {
	if k == WebSocket {
		return "wss", "ws"
	}
	return "https", "http"
}

// Config is what a Policy is made from.
type Config struct {
	// PluginID names the plugin in refusals.
	PluginID string
	// Network is permissions.network as the user granted it now.
	Network []string
	// AccountHosts are the hosts of the accounts the user typed, each
	// host[:port], which {account} stands for.
	AccountHosts []string
	// LocalShared are the harnesses' local servers, each host:port, which
	// local:shared stands for.
	LocalShared []string
}

// Policy judges URLs against the granted permissions.network. It is
// immutable once made and safe for concurrent use.
type Policy struct {
	pluginID string
	names    []string     // ASCII names; each covers its subdomains
	addrs    []netip.Addr // IP literals; each covers itself only
	local    []hostPort   // exact hosts that may use plain http and the local network
}

// hostPort is a host the app supplied; port "" stands for the default
// port of the URL's scheme.
type hostPort struct {
	host, port string
}

// NewPolicy builds the policy of one start of a plugin. Entries that name
// no valid host grant nothing; an {account} or local:shared entry grants
// the hosts of the config only while it is in Network.
func NewPolicy(c Config) *Policy {
	p := &Policy{pluginID: c.PluginID}
	for _, entry := range c.Network {
		switch entry {
		case AccountEntry:
			p.local = append(p.local, parseHostPorts(c.AccountHosts)...)
		case LocalSharedEntry:
			p.local = append(p.local, parseHostPorts(c.LocalShared)...)
		default:
			p.addEntry(entry)
		}
	}
	return p
}

func (p *Policy) addEntry(entry string) {
	host := strings.TrimSuffix(strings.TrimPrefix(entry, "["), "]")
	name, addr, why := normalizeHost(host)
	switch {
	case why != "":
		return
	case addr.IsValid():
		p.addrs = append(p.addrs, addr)
	default:
		p.names = append(p.names, name)
	}
}

// parseHostPorts reads the app's host[:port] values; malformed ones are
// left out (they would match nothing anyway).
func parseHostPorts(values []string) []hostPort {
	var out []hostPort
	for _, v := range values {
		host, port := v, ""
		if h, p, err := net.SplitHostPort(v); err == nil {
			host, port = h, p
		} else {
			host = strings.TrimSuffix(strings.TrimPrefix(v, "["), "]")
		}
		if port != "" && !validPort(port) {
			continue
		}
		name, addr, why := normalizeHost(host)
		if why != "" {
			continue
		}
		if addr.IsValid() {
			name = addr.String()
		}
		out = append(out, hostPort{host: name, port: canonicalPort(port)})
	}
	return out
}

// Target is a URL the policy let through, rewritten to the form that is
// judged: its host in ASCII, lower case, without a trailing dot.
type Target struct {
	URL *url.URL
	// Host is the judged name, or the IP literal without brackets.
	Host string
	// Port is the port dialed: the URL's, or the default of its scheme.
	Port string
	// Local is true for a host the app supplied ({account},
	// local:shared): plain http and the local network are open to it.
	Local bool
}

// CheckURL judges raw for a request of kind k. The refusal's Reason is the
// journal sentence of docs/protocol.md#netfetch.
func (p *Policy) CheckURL(raw string, k Kind) (Target, *Refusal) {
	u, err := url.Parse(raw)
	if err != nil {
		return Target{}, refusef("%q: not a valid URL", raw)
	}
	secure, plain := k.schemes()
	if u.Scheme != secure && u.Scheme != plain {
		return Target{}, refusef("%s: only %s is allowed", u.Redacted(), secure)
	}
	if u.User != nil || strings.Contains(u.Host, "@") {
		return Target{}, refusef("%s: a URL with userinfo is not allowed", u.Redacted())
	}
	t, refusal := p.target(u)
	if refusal != nil {
		return Target{}, refusal
	}
	if u.Scheme == plain && !t.Local {
		return Target{}, refusef("%s: only %s is allowed", u.Redacted(), secure)
	}
	return t, nil
}

// target normalises the host and port of u and judges the host.
func (p *Policy) target(u *url.URL) (Target, *Refusal) {
	if u.Host == "" || u.Opaque != "" {
		return Target{}, refusef("%s: a URL without a host", u.Redacted())
	}
	port := u.Port()
	if strings.HasSuffix(u.Host, ":") || port != "" && !validPort(port) {
		return Target{}, refusef("%s: not a valid port", u.Redacted())
	}
	name, addr, why := normalizeHost(u.Hostname())
	if why == invalidName {
		return Target{}, refusef("%q: %s, so it is not in permissions.network of %s", u.Hostname(), why, p.pluginID)
	}
	if why != "" {
		return Target{}, refusef("%q: %s", u.Hostname(), why)
	}
	t := Target{Host: name, Port: canonicalPort(port)}
	if addr.IsValid() {
		t.Host = addr.String()
	}
	t.Local = p.isLocal(t.Host, t.Port, u.Scheme)
	if t.Port == "" {
		t.Port = defaultPort(u.Scheme)
	}
	if refusal := p.judgeHost(t.Host, addr, t.Local); refusal != nil {
		return Target{}, refusal
	}
	t.URL = rewriteHost(u, t.Host, port)
	return t, nil
}

// judgeHost applies permissions.network to a normalised host.
func (p *Policy) judgeHost(host string, addr netip.Addr, local bool) *Refusal {
	if local {
		return nil
	}
	if addr.IsValid() {
		if !slices.Contains(p.addrs, addr) {
			return p.notListed(host)
		}
		if Forbidden(addr) {
			return forbiddenAddress(host, host)
		}
		return nil
	}
	if !p.coversName(host) {
		return p.notListed(host)
	}
	return nil
}

func (p *Policy) notListed(host string) *Refusal {
	return refusef("%s is not in permissions.network of %s", host, p.pluginID)
}

// coversName reports whether a listed name is name or one of its parents
// by whole labels: slack.com covers api.slack.com, not evilslack.com.
func (p *Policy) coversName(name string) bool {
	for _, entry := range p.names {
		if name == entry || strings.HasSuffix(name, "."+entry) {
			return true
		}
	}
	return false
}

// isLocal reports whether host:port is one the app supplied. An entry
// without a port stands for the default port of the URL's scheme.
func (p *Policy) isLocal(host, port, scheme string) bool {
	for _, hp := range p.local {
		if hp.host != host {
			continue
		}
		if hp.port == port || hp.port == "" && (port == "" || port == defaultPort(scheme)) {
			return true
		}
	}
	return false
}

// allowsDial reports whether the dialer may connect to host:port, as the
// transport gives it (port always explicit), and whether the local network
// is open to it. It repeats the judgement of CheckURL so that nothing but
// a judged host is ever dialed.
func (p *Policy) allowsDial(host, port string) (local bool, refusal *Refusal) {
	name, addr, why := normalizeHost(host)
	if why != "" {
		return false, refusef("%q: %s", host, why)
	}
	if addr.IsValid() {
		name = addr.String()
	}
	for _, hp := range p.local {
		if hp.host == name && (hp.port == port || hp.port == "" && (port == "80" || port == "443")) {
			return true, nil
		}
	}
	return false, p.judgeHost(name, addr, false)
}

// normalizeHost maps a host to the form it is judged in. It returns the
// ASCII name, or the address for an IP literal, or why the host is
// malformed.
func normalizeHost(host string) (name string, addr netip.Addr, why string) {
	if strings.Contains(host, ":") {
		a, err := netip.ParseAddr(host)
		if err != nil {
			return "", netip.Addr{}, "not a valid IP address"
		}
		if a.Zone() != "" {
			return "", netip.Addr{}, "a zoned IPv6 address, which names an interface of this machine"
		}
		return "", a, ""
	}
	ascii, err := idna.Lookup.ToASCII(host)
	if err != nil {
		return "", netip.Addr{}, invalidName
	}
	// One trailing dot is the DNS root: slack.com. is slack.com. It is
	// dropped after the mapping, which turns an ideographic full stop (。)
	// into a dot, and only once: slack.com.. is not a name.
	ascii = strings.TrimSuffix(ascii, ".")
	if ascii == "" {
		return "", netip.Addr{}, "an empty host name"
	}
	if hasEmptyLabel(ascii) {
		return "", netip.Addr{}, invalidName
	}
	// Mapping may turn a full-width form into a plain address.
	if a, err := netip.ParseAddr(ascii); err == nil && a.Is4() {
		return "", a, ""
	}
	if numericLooking(ascii) {
		return "", netip.Addr{}, "a numeric host that is not a plain IPv4 address"
	}
	return ascii, netip.Addr{}, ""
}

// invalidName is why a host that is no DNS name is refused.
const invalidName = "not a valid host name"

// hasEmptyLabel reports a name with a leading dot, two dots in a row or
// a dot left at its end: a resolver would read it another way than the
// policy, or not at all.
func hasEmptyLabel(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".") || strings.Contains(name, "..")
}

// numericLooking reports a name that some resolvers read as an IPv4
// address (inet_aton accepts 127.1, 2130706433, 0x7f.1, 0177.0.0.1): no
// top-level domain is numeric, so such a name is never a real host.
func numericLooking(name string) bool {
	labels := strings.Split(name, ".")
	last := labels[len(labels)-1]
	if strings.HasPrefix(last, "0x") {
		return true
	}
	_, err := strconv.ParseUint(last, 10, 64)
	return err == nil || strings.Trim(last, "0123456789") == ""
}

func validPort(port string) bool {
	n, err := strconv.ParseUint(port, 10, 16)
	return err == nil && n > 0
}

// canonicalPort drops leading zeros, so 0443 is judged as 443.
func canonicalPort(port string) string {
	if port == "" {
		return ""
	}
	n, _ := strconv.ParseUint(port, 10, 16)
	return strconv.FormatUint(n, 10)
}

func defaultPort(scheme string) string {
	if scheme == "https" || scheme == "wss" {
		return "443"
	}
	return "80"
}

// rewriteHost returns a copy of u with its host as judged.
func rewriteHost(u *url.URL, host, port string) *url.URL {
	out := *u
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + canonicalPort(port)
	}
	out.Host = host
	return &out
}
